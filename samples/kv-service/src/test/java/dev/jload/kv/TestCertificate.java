package dev.jload.kv;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway self-signed certificate for localhost and 127.0.0.1 (cert.pem, and key.pem in PKCS#8), made by openssl
 * in a test's directory, and a client SSLContext that trusts it. No key material is committed.
 */
final class TestCertificate {
    final Path cert;
    final Path key;

    private TestCertificate(Path cert, Path key) {
        this.cert = cert;
        this.key = key;
    }

    static TestCertificate create(Path dir) throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                "-keyout", key.toString(), "-out", cert.toString(), "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
                .redirectErrorStream(true)
                .start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!openssl.waitFor(30, TimeUnit.SECONDS) || openssl.exitValue() != 0 || !Files.exists(key)) {
            openssl.destroyForcibly();
            throw new AssertionError("openssl could not make a test certificate: " + output);
        }
        return new TestCertificate(cert, key);
    }

    /** A TLS client context whose only trusted certificate is this one. */
    SSLContext trustingClient() throws Exception {
        Certificate certificate;
        try (InputStream in = Files.newInputStream(cert)) {
            certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("kv-service", certificate);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
