//! What the Struct codec keeps, drops or rejects, in both directions.
//!
//! Mirrors the options of pulumi/pulumi `plugin.MarshalOptions` that mean something without a
//! file system (no hash computing, no working directory). The default is Go's zero value: unknowns
//! dropped, secrets unwrapped, resource references flattened to strings, output values unwrapped.
//! The same options apply when encoding and when decoding.

/// The default bound on nesting (arrays, objects and special objects each count one level).
///
/// prost already refuses protobuf nested deeper than 100 messages (an object level costs three:
/// value, struct, map entry), so this bound matters for values built in memory. At this depth the
/// codec needs under 1 MiB of stack in a debug build and 256 KiB in release (measured with
/// chains of secrets, the deepest frames), well within a 2 MiB thread stack.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Codec options; build them with struct update syntax from [`Options::default`] or
/// [`Options::lossless`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Keep unknowns (`KeepUnknowns`). When false, unknowns are dropped: an object loses the key
    /// and, when encoding, an array loses the element (when decoding, the element becomes null,
    /// as in Go). A dropped secret or output value is dropped whole.
    pub keep_unknowns: bool,
    /// Fail on any unknown (`RejectUnknowns`); takes precedence over `keep_unknowns`. The engine
    /// decodes Read results this way.
    pub reject_unknowns: bool,
    /// Keep secrets (`KeepSecrets`). When false, a secret is replaced by its value.
    pub keep_secrets: bool,
    /// Keep resource references (`KeepResources`). When false, a reference becomes its ID when
    /// it has one (an unknown ID becomes an unknown) and its URN otherwise.
    pub keep_resources: bool,
    /// Keep output values (`KeepOutputValues`). When false, an output becomes its value (an
    /// unknown when it has none), wrapped in a secret when it is secret; its dependencies are
    /// lost.
    pub keep_output_values: bool,
    /// Turn secrets and unknowns into output values (`UpgradeToOutputValues`); only with
    /// `keep_output_values`.
    pub upgrade_to_output_values: bool,
    /// Skip null object fields (`SkipNulls`), at every level. Array elements are kept.
    pub skip_nulls: bool,
    /// Skip top-level keys that start with `__` (`SkipInternalKeys`), such as the engine's
    /// `__internal` or the bridge's `__meta`.
    pub skip_internal_keys: bool,
    /// Encode assets and archives with their hash only (`ElideAssetContents`); encoding only.
    pub elide_asset_contents: bool,
    /// Fail on any asset or archive (`RejectAssets`).
    pub reject_assets: bool,
    /// The deepest nesting accepted; deeper values are an error rather than a stack overflow.
    pub max_depth: usize,
}

impl Options {
    /// Go's zero-value options (see the module documentation).
    pub const DEFAULT: Options = Options {
        keep_unknowns: false,
        reject_unknowns: false,
        keep_secrets: false,
        keep_resources: false,
        keep_output_values: false,
        upgrade_to_output_values: false,
        skip_nulls: false,
        skip_internal_keys: false,
        elide_asset_contents: false,
        reject_assets: false,
        max_depth: DEFAULT_MAX_DEPTH,
    };

    /// Options that keep everything: unknowns, secrets, resource references and output values.
    /// Under them, encoding then decoding gives back the same value.
    #[must_use]
    pub const fn lossless() -> Options {
        Options {
            keep_unknowns: true,
            keep_secrets: true,
            keep_resources: true,
            keep_output_values: true,
            ..Options::DEFAULT
        }
    }

    /// Whether secrets and unknowns become output values.
    pub(crate) fn upgrade(&self) -> bool {
        self.keep_output_values && self.upgrade_to_output_values
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::DEFAULT
    }
}
