//! `__pulumi_raw_state_delta`: how to rebuild the provider's exact raw state JSON from the
//! Pulumi outputs (the Go bridge's `pkg/tfbridge/rawstate.go`).
//!
//! Pulumi keeps resource state as outputs, renamed and reshaped; a provider upgrading state
//! wants the raw JSON its older version wrote. The delta records only what the natural
//! rebuild gets wrong, as a tree with one kind per node:
//! `{}` natural (snake-cased keys, values as they are), `{"plu":{"i":d}}` a flattened
//! MaxItemsOne value (`null` is `[]`, `x` is `[x]`), `{"map":{"el":{k:d}}}`,
//! `{"arr":{"el":{"0":d}}}`, `{"obj":{"ignored":[…],"renamed":{prop:tf},"ps":{prop:d}}}`,
//! `{"num":{}}` (a number kept as a string), `{"asset":{…}}` and `{"replace":{"raw":json}}`,
//! the verbatim JSON where nothing better works (null attributes Pulumi omits, dynamic values,
//! write-only attributes). Every object holding a `replace` key is stored as a secret, as Go
//! stores it. A new delta is only written after the rebuilt JSON was checked to match the
//! provider's state byte for byte.

mod compute;
mod delta;
mod recover;

use tfp_cty::Value;
use tfp_values::{PropertyMap, PropertyValue};

use crate::encode::{Mode, properties_to_cty};
use crate::error::{Error, Result};
use crate::schema::ObjectSchema;

pub(crate) use delta::Delta;

/// The name of the property.
pub const RAW_STATE_DELTA_KEY: &str = "__pulumi_raw_state_delta";

/// Keys the bridge reserves in resource properties; they are never state attributes.
pub(crate) fn is_reserved_key(key: &str) -> bool {
    matches!(key, crate::META_KEY | RAW_STATE_DELTA_KEY | "__defaults")
}

/// The value of `__pulumi_raw_state_delta` for outputs `props` decoded from the provider's
/// `state`; `None` when the outputs contain unknowns (Go writes no delta then). Fails when the
/// rebuilt raw state would not match `state` byte for byte.
pub fn raw_state_delta(
    schema: &ObjectSchema<'_>,
    props: &PropertyMap,
    state: &Value,
) -> Result<Option<PropertyValue>> {
    Ok(raw_state_delta_and_raw(schema, props, state)?.map(|(delta, _)| delta))
}

/// [`raw_state_delta`], with the raw state JSON the delta rebuilds (what [`recover_raw_state`]
/// gives for the outputs with the delta added), for callers that need both.
pub fn raw_state_delta_and_raw(
    schema: &ObjectSchema<'_>,
    props: &PropertyMap,
    state: &Value,
) -> Result<Option<(PropertyValue, Vec<u8>)>> {
    let pv = PropertyValue::Object(props.clone());
    if pv.contains_unknowns() {
        return Ok(None);
    }
    let ty = schema.implied_type();
    let (delta, raw) = compute::compute(schema, &pv, state, &ty)?;
    let recovered = recover::recover(&delta, &pv)?;
    if recovered.as_bytes() != raw.as_slice() {
        return Err(Error::Turnaround);
    }
    let stored = delta.to_property();
    if !delta.has_replace() {
        return Ok(Some((stored, raw)));
    }
    // A raw value stored as properties comes back with its object keys sorted (a dynamic
    // attribute's `{"value":…,"type":…}`) and its numbers as float64s, as in Go: the same
    // state, in the bytes a later call recovers from the stored outputs, by which it is
    // remembered.
    let recovered = recover::recover(&Delta::from_property(&stored)?, &pv)?;
    Ok(Some((stored, recovered.into_bytes())))
}

/// The raw state JSON recorded by `__pulumi_raw_state_delta` in `props`; `None` when there is
/// no delta (then use [`raw_state_from_properties`]).
pub fn recover_raw_state(props: &PropertyMap) -> Result<Option<Vec<u8>>> {
    let Some(delta) = props.get(RAW_STATE_DELTA_KEY) else {
        return Ok(None);
    };
    let delta = Delta::from_property(delta)?;
    let pv = PropertyValue::Object(props.clone());
    Ok(Some(recover::recover(&delta, &pv)?.into_bytes()))
}

/// Raw state JSON encoded from the outputs alone, for state written without a delta (Go's
/// "imprecise legacy parsing"): the properties as state, written as Terraform writes state.
pub fn raw_state_from_properties(
    schema: &ObjectSchema<'_>,
    props: &PropertyMap,
) -> Result<Vec<u8>> {
    let value = properties_to_cty(schema, props, Mode::State)?;
    tfp_cty::to_json(&value, &schema.implied_type()).map_err(Error::Json)
}
