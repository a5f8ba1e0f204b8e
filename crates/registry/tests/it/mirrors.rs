//! Filesystem and network mirrors serve installs while the registry is down.

use tfp_registry::{Origin, Platform};

use crate::support::{
    World, chain,
    package::{Release, real_package},
    server::{Route, Server},
};

/// A `host:port` where nothing listens: the "registry" for these tests is down. The port is
/// the kernel's pick and stays bound, but not listening, while the socket lives: connections
/// are refused, and no other process can take the port meanwhile.
fn dead_host() -> (tokio::net::TcpSocket, String) {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind("127.0.0.1:0".parse().expect("an address"))
        .expect("bind");
    let port = socket.local_addr().expect("address").port();
    (socket, format!("127.0.0.1:{port}"))
}

fn write_config(world: &World, text: &str) -> tfp_registry::Environment {
    let path = world.dir.path().join("tofurc");
    std::fs::write(&path, text).expect("write CLI config");
    let mut env = world.env();
    env.set("TF_CLI_CONFIG_FILE", path.display().to_string());
    env
}

#[tokio::test]
async fn filesystem_mirror_packed_and_unpacked() {
    let world = World::new();
    let (_dead, host) = dead_host();
    let p = Platform::current();
    let mirror = world.dir.path().join("mirror");
    // Packed layout for 3.6.3.
    let packed_dir = mirror.join(&host).join("hashicorp/random");
    std::fs::create_dir_all(&packed_dir).expect("mkdir");
    let zip = real_package("random", "3.6.3");
    std::fs::write(
        packed_dir.join(format!(
            "terraform-provider-random_3.6.3_{}_{}.zip",
            p.os, p.arch
        )),
        &zip,
    )
    .expect("write zip");
    // Unpacked layout for 3.6.2.
    let unpacked = packed_dir.join("3.6.2").join(p.to_string());
    std::fs::create_dir_all(&unpacked).expect("mkdir");
    std::fs::write(
        unpacked.join("terraform-provider-random_v3.6.2_x5"),
        b"#!/bin/sh\n",
    )
    .expect("write exe");
    let env = write_config(
        &world,
        &format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n    include = [\"{host}/*/*\"]\n  }}\n}}\n",
            mirror.display()
        ),
    );
    let installer = tfp_registry::Installer::new(world.settings(&env)).expect("installer");
    let source = format!("{host}/hashicorp/random");
    let newest = installer
        .install_str(&source, "")
        .await
        .expect("install from the packed mirror");
    assert_eq!(newest.version.to_string(), "3.6.3");
    assert_eq!(newest.origin, Origin::FilesystemMirror(mirror.clone()));
    assert_eq!(
        newest.zh.as_deref(),
        Some(format!("zh:{}", crate::support::package::sha256_hex(&zip)).as_str())
    );
    assert_eq!(
        std::fs::read(&newest.executable).expect("exe"),
        crate::support::random_binary()
    );
    let older = installer
        .install_str(&source, "3.6.2")
        .await
        .expect("install from the unpacked mirror");
    assert_eq!(older.origin, Origin::FilesystemMirror(mirror));
    assert!(
        older
            .executable
            .ends_with("terraform-provider-random_v3.6.2_x5")
    );
    assert_eq!(older.zh, None);
}

#[tokio::test]
async fn network_mirror_with_hashes() {
    let world = World::new();
    let (_dead, host) = dead_host();
    let p = Platform::current();
    let mirror = Server::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    let base = format!("/mirror/{host}/hashicorp/random");
    mirror.route(
        &format!("{base}/index.json"),
        Route::Json(200, r#"{"versions":{"3.6.3":{}}}"#.into()),
    );
    let good_h1 = tfp_registry_h1(&release.zip);
    let archives = |h: &str| {
        serde_json::json!({"archives": {p.to_string(): {
            "url": "pkgs/random_3.6.3.zip",
            "hashes": [h],
        }}})
        .to_string()
    };
    mirror.route(
        &format!("{base}/3.6.3.json"),
        Route::Json(200, archives(&good_h1)),
    );
    mirror.route(
        &format!("{base}/pkgs/random_3.6.3.zip"),
        Route::Bytes(release.zip.clone()),
    );
    let env = write_config(
        &world,
        &format!(
            "provider_installation {{\n  network_mirror {{\n    url = \"{}\"\n  }}\n}}\n",
            mirror.url("/mirror/")
        ),
    );
    let source = format!("{host}/hashicorp/random");

    // A hash that does not match is refused, and nothing stays in the cache.
    mirror.route(
        &format!("{base}/3.6.3.json"),
        Route::Json(
            200,
            archives("h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        ),
    );
    let installer = tfp_registry::Installer::new(world.settings(&env)).expect("installer");
    let err = installer
        .install_str(&source, "3.6.3")
        .await
        .expect_err("bad hash refused");
    assert!(
        chain(&err).contains("doesn't match the expected checksum"),
        "{}",
        chain(&err)
    );
    assert_eq!(world.cache_files(), Vec::<String>::new());

    mirror.route(
        &format!("{base}/3.6.3.json"),
        Route::Json(200, archives(&good_h1)),
    );
    let got = installer
        .install_str(&source, "3.6.3")
        .await
        .expect("install from the network mirror");
    assert_eq!(got.origin, Origin::NetworkMirror(mirror.url("/mirror/")));
    assert_eq!(got.h1, good_h1);
    assert_eq!(
        std::fs::read(&got.executable).expect("exe"),
        crate::support::random_binary()
    );
}

/// A mirror URL may carry a user and password, which reqwest sends as basic authentication; they
/// are never shown, neither in errors nor where the mirror is named.
#[tokio::test]
async fn mirror_credentials_are_never_shown() {
    let world = World::new();
    let (_dead, host) = dead_host();
    let (_closed, mirror) = dead_host();
    let with_mirror = |url: &str| {
        write_config(
            &world,
            &format!(
                "provider_installation {{\n  network_mirror {{\n    url = \"{url}\"\n  }}\n}}\n"
            ),
        )
    };
    let env = with_mirror(&format!("https://mirror-user:s3cr3t-pa55@{mirror}/m/"));
    let settings = world.settings(&env);
    let shown = settings.methods[0].location.to_string();
    assert_eq!(shown, format!("provider mirror at https://***@{mirror}/m/"));
    let installer = tfp_registry::Installer::new(settings).expect("installer");
    let err = installer
        .install_str(&format!("{host}/hashicorp/random"), "")
        .await
        .expect_err("the mirror is down");
    let text = chain(&err);
    assert!(text.contains(&format!("https://***@{mirror}/m/")), "{text}");
    assert!(!text.contains("s3cr3t"), "the password is shown: {text}");
    assert!(!text.contains("mirror-user"), "the user is shown: {text}");

    // Nor when the configuration is refused for the URL's scheme, or because it does not parse.
    for (url, want) in [
        (
            "http://mirror-user:s3cr3t-pa55@mirror.example/",
            "http://***@mirror.example/",
        ),
        (
            "https://mirror-user:s3cr3t-pa55@mirror.example:port/",
            "https://***@mirror.example:port/",
        ),
        // Without a scheme, the user reads as one.
        (
            "mirror-user:s3cr3t-pa55@mirror.example/",
            "***@mirror.example/",
        ),
    ] {
        let err = tfp_registry::Settings::from_environment(&with_mirror(url)).expect_err(url);
        let text = chain(&err);
        assert!(text.contains(want), "{text}");
        assert!(!text.contains("s3cr3t"), "the password is shown: {text}");
    }
}

/// A mirror URL's user and password go as basic authentication with every request to the
/// mirror, the package's download included, whose URL the mirror gives relative to its answer.
#[tokio::test]
async fn a_mirror_login_goes_with_every_request_to_the_mirror() {
    use base64::Engine as _;

    let world = World::new();
    let (_dead, host) = dead_host();
    let mirror = Server::start(&world.pki).await;
    let release = Release::real("hashicorp", "random", "3.6.3");
    let base = format!("/mirror/{host}/hashicorp/random");
    let basic = base64::engine::general_purpose::STANDARD.encode("mirror-user:pa55");
    let login = |route: Route| Route::Auth {
        header: format!("Basic {basic}"),
        inner: Box::new(route),
    };
    let archives = serde_json::json!({"archives": {Platform::current().to_string(): {
        "url": "pkgs/random_3.6.3.zip",
        "hashes": [tfp_registry_h1(&release.zip)],
    }}});
    let package = format!("{base}/pkgs/random_3.6.3.zip");
    for (path, route) in [
        (
            format!("{base}/index.json"),
            Route::Json(200, r#"{"versions":{"3.6.3":{}}}"#.into()),
        ),
        (
            format!("{base}/3.6.3.json"),
            Route::Json(200, archives.to_string()),
        ),
        (package.clone(), Route::Bytes(release.zip.clone())),
    ] {
        mirror.route(&path, login(route));
    }
    let url = (mirror.url("/mirror/")).replacen("https://", "https://mirror-user:pa55@", 1);
    let env = write_config(
        &world,
        &format!("provider_installation {{\n  network_mirror {{\n    url = \"{url}\"\n  }}\n}}\n"),
    );
    let got = tfp_registry::Installer::new(world.settings(&env))
        .expect("installer")
        .install_str(&format!("{host}/hashicorp/random"), "3.6.3")
        .await
        .expect("installed with the mirror's login");
    assert_eq!(got.version.to_string(), "3.6.3");
    assert!(
        matches!(&got.origin, Origin::NetworkMirror(at) if !at.contains("pa55")),
        "{:?}",
        got.origin
    );
    assert_eq!(mirror.hits(&package), 1);
}

/// The `h1:` the crate computes for an extracted zip, by extracting it here and hashing.
fn tfp_registry_h1(zip_bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes)).expect("zip");
    archive.extract(dir.path()).expect("extract");
    tfp_registry::h1_dir(dir.path()).expect("hash")
}
