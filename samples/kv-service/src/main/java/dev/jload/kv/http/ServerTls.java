package dev.jload.kv.http;

import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.KvConfig;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolConfig.Protocol;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads the server's TLS context from {@code kv.tls.cert} and {@code kv.tls.key} (JDK provider, no native library),
 * with ALPN offering {@code h2} and {@code http/1.1} when {@code kv.http2=true}, else {@code http/1.1} alone. The
 * cipher suites are the ones HTTP/2 allows whatever kv.http2 says, so that HTTP/1.1 and HTTP/2 runs of a plan
 * negotiate the same TLS. Files that are missing or do not load are a {@link ConfigException} naming the properties,
 * so the service exits 2 before it opens its store.
 */
public final class ServerTls {
    private ServerTls() {
    }

    /** The context to wrap each connection in, or null when the configuration has no TLS. */
    public static SslContext context(KvConfig config) {
        KvConfig.TlsSettings tls = config.tls();
        if (tls == null) {
            return null;
        }
        requireReadable("kv.tls.cert", tls.cert());
        requireReadable("kv.tls.key", tls.key());
        ApplicationProtocolConfig alpn = config.http2()
                ? alpn(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
                : alpn(ApplicationProtocolNames.HTTP_1_1);
        try {
            return SslContextBuilder.forServer(tls.cert().toFile(), tls.key().toFile())
                    .sslProvider(SslProvider.JDK)
                    // RFC 9113 9.2.2: h2 must not use the suites it blacklists; Netty's list is the allowed ones
                    .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                    .applicationProtocolConfig(alpn)
                    .build();
        } catch (Exception e) {
            throw new ConfigException("kv.tls.cert=" + tls.cert() + " and kv.tls.key=" + tls.key() + " do not load as"
                    + " a PEM certificate chain and its PEM PKCS#8 private key: " + firstLine(e));
        }
    }

    private static ApplicationProtocolConfig alpn(String... protocols) {
        // NO_ADVERTISE / ACCEPT: a client without ALPN, or offering none of ours, still gets HTTP/1.1.
        return new ApplicationProtocolConfig(Protocol.ALPN, SelectorFailureBehavior.NO_ADVERTISE,
                SelectedListenerFailureBehavior.ACCEPT, protocols);
    }

    private static void requireReadable(String property, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new ConfigException(property + "=" + file + " is not a readable file");
        }
    }

    private static String firstLine(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getMessage() == null) {
            root = root.getCause();
        }
        String message = root.getMessage() != null ? root.getMessage() : root.toString();
        return message.lines().findFirst().orElse(root.toString());
    }
}
