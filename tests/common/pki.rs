//! Certificates made for a test, in a folder: a CA, a server certificate it signed for `localhost` and 127.0.0.1,
//! the same server's certificate expired, and a client certificate it signed — PEM files that nginx, a rustls test
//! server and jload's `--cacert`/`--cert`/`--key` read. Nothing is kept between tests.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose, date_time_ymd};

pub struct Pki {
    pub dir: PathBuf,
}

impl Pki {
    /// Make every certificate and key under `dir`.
    pub fn create(dir: &Path) -> Pki {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name.push(DnType::CommonName, "jload test CA");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        std::fs::write(dir.join("ca.pem"), ca_cert.pem()).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
        let leaf = |name: &str, params: CertificateParams| {
            let key = KeyPair::generate().unwrap();
            let cert = params.signed_by(&key, &issuer).unwrap();
            std::fs::write(dir.join(format!("{name}.pem")), cert.pem()).unwrap();
            std::fs::write(dir.join(format!("{name}.key")), key.serialize_pem()).unwrap();
        };
        leaf("server", CertificateParams::new(names.clone()).unwrap());
        let mut expired = CertificateParams::new(names).unwrap();
        (expired.not_before, expired.not_after) = (date_time_ymd(2020, 1, 1), date_time_ymd(2021, 1, 1));
        leaf("expired", expired);
        let mut client = CertificateParams::new(Vec::<String>::new()).unwrap();
        client.distinguished_name.push(DnType::CommonName, "jload test client");
        leaf("client", client);
        Pki { dir: dir.to_path_buf() }
    }

    /// The path of `name` (ca.pem, server.pem, server.key, expired.pem, expired.key, client.pem, client.key).
    pub fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}
