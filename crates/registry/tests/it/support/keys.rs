//! Test OpenPGP keys, generated deterministically from fixed seeds, and detached signatures.

use pgp::{
    composed::{
        ArmorOptions, DetachedSignature, KeyType, SecretKeyParamsBuilder, SignedSecretKey,
        SubpacketConfig,
    },
    crypto::hash::HashAlgorithm,
    packet::{SignatureConfig, SignatureType, Subpacket, SubpacketData},
    ser::Serialize,
    types::{Duration, KeyDetails, Password, Timestamp},
};
use rand_chacha::{ChaCha20Rng, rand_core::SeedableRng};

pub(crate) struct TestKey {
    secret: SignedSecretKey,
    pub(crate) armored_public: String,
}

impl TestKey {
    /// A signing key made from `seed`; the same seed always gives the same key.
    pub(crate) fn new(seed: u64, name: &str) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let params = SecretKeyParamsBuilder::default()
            .key_type(KeyType::Ed25519Legacy)
            .can_sign(true)
            .can_certify(true)
            .created_at(Timestamp::from_secs(1_600_000_000))
            .primary_user_id(format!("{name} <{name}@example.test>"))
            .build()
            .expect("key parameters");
        let secret = params.generate(&mut rng).expect("key generation");
        let armored_public = secret
            .to_public_key()
            .to_armored_string(ArmorOptions::default())
            .expect("armor");
        TestKey {
            secret,
            armored_public,
        }
    }

    /// A key created in 2020 whose newest self-signature gives it a lifetime of one day.
    pub(crate) fn expired(seed: u64, name: &str) -> Self {
        let mut key = TestKey::new(seed, name);
        let primary = &key.secret.primary_key;
        let public = primary.public_key().clone();
        let mut config = SignatureConfig::v4(
            SignatureType::CertPositive,
            primary.algorithm(),
            HashAlgorithm::Sha256,
        );
        config.hashed_subpackets = vec![
            // Newer than the builder's own self-signature, which is dated now.
            Subpacket::regular(SubpacketData::SignatureCreationTime(Timestamp::from_secs(
                Timestamp::now().as_secs() + 1,
            )))
            .expect("subpacket"),
            Subpacket::regular(SubpacketData::KeyExpirationTime(Duration::from_secs(
                86_400,
            )))
            .expect("subpacket"),
            Subpacket::regular(SubpacketData::IssuerFingerprint(primary.fingerprint()))
                .expect("subpacket"),
        ];
        let user = &key.secret.details.users[0];
        let sig = config
            .sign_certification(
                primary,
                &public,
                &Password::empty(),
                pgp::types::Tag::UserId,
                &user.id,
            )
            .expect("certification");
        key.secret.details.users[0].signatures.push(sig);
        key.armored_public = key
            .secret
            .to_public_key()
            .to_armored_string(ArmorOptions::default())
            .expect("armor");
        key
    }

    /// A binary detached signature over `doc`, as registries serve it.
    pub(crate) fn sign(&self, doc: &[u8]) -> Vec<u8> {
        let rng = ChaCha20Rng::seed_from_u64(1);
        let sig = DetachedSignature::sign_binary_data(
            rng,
            &self.secret.primary_key,
            &Password::empty(),
            HashAlgorithm::Sha256,
            doc,
        )
        .expect("signing");
        sig.to_bytes().expect("serialize signature")
    }

    /// A signature made two days ago that expired after one day.
    pub(crate) fn sign_expired(&self, doc: &[u8]) -> Vec<u8> {
        let rng = ChaCha20Rng::seed_from_u64(2);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock after 1970")
            .as_secs();
        let created = u32::try_from(now - 2 * 86_400).expect("fits until 2106");
        let key = &self.secret.primary_key;
        let hashed = vec![
            Subpacket::regular(SubpacketData::SignatureCreationTime(Timestamp::from_secs(
                created,
            )))
            .expect("subpacket"),
            Subpacket::regular(SubpacketData::SignatureExpirationTime(Duration::from_secs(
                86_400,
            )))
            .expect("subpacket"),
            Subpacket::regular(SubpacketData::IssuerFingerprint(key.fingerprint()))
                .expect("subpacket"),
        ];
        let unhashed = vec![
            Subpacket::regular(SubpacketData::IssuerKeyId(key.legacy_key_id())).expect("subpacket"),
        ];
        let sig = DetachedSignature::sign_binary_data_with_subpackets(
            rng,
            key,
            &Password::empty(),
            HashAlgorithm::Sha256,
            doc,
            SubpacketConfig::UserDefined { hashed, unhashed },
        )
        .expect("signing");
        sig.to_bytes().expect("serialize signature")
    }
}
