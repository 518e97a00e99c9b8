package dev.jload.kv.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * Builds each accepted connection's pipeline for the protocols the configuration serves; the one place that knows
 * them:
 * <ul>
 *   <li>no TLS, kv.http2=false: HTTP/1.1;</li>
 *   <li>no TLS, kv.http2=true: h2c with prior knowledge, h2c by {@code Upgrade: h2c}, or HTTP/1.1, told apart by the
 *       connection's first bytes;</li>
 *   <li>TLS: the handshake, then HTTP/2 or HTTP/1.1 as ALPN chose ({@link ServerTls} offers h2 only with
 *       kv.http2=true).</li>
 * </ul>
 * Every protocol ends in the same {@link KvHandler} behind a {@link ValueSizeAggregator}: an HTTP/2 stream is a child
 * channel whose frames are converted to and from HTTP/1 objects, so the handler reads a FullHttpRequest and writes a
 * FullHttpResponse whatever the protocol. Behind the blocking bdb store the handler runs on a store worker, pinned per
 * HTTP/1 connection (its responses stay in order) and per HTTP/2 stream (streams of one connection spread over the
 * workers). {@link ConnectionErrors} ends every connection's and every stream's pipeline.
 */
final class ProtocolPipelines extends ChannelInitializer<SocketChannel> {
    /** Longest HTTP/1 request line; longer gets 431. */
    static final int MAX_INITIAL_LINE = 4096;
    /** Largest HTTP/1 header block; longer gets 431. HTTP/2's header list limit is Netty's default, the same 8 KiB. */
    static final int MAX_HEADER_BYTES = 8192;
    /** Concurrent streams a client may open on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
    static final int MAX_CONCURRENT_STREAMS = 1024;
    private static final int MAX_CHUNK = 64 << 10;
    private static final String ERRORS = "errors";

    private final SslContext tls;
    private final boolean http2;
    private final int maxValueSize;
    private final KvHandler handler;
    private final EventExecutorGroup storeWorkers;
    private final ChannelGroup connections;
    private final ChannelInitializer<Http2StreamChannel> streams = new ChannelInitializer<>() {
        @Override
        protected void initChannel(Http2StreamChannel stream) {
            ChannelPipeline pipeline = stream.pipeline();
            pipeline.addLast(ERRORS, ConnectionErrors.INSTANCE);
            pipeline.addBefore(ERRORS, "http2-to-http1", new Http2StreamFrameToHttpObjectCodec(true));
            addRequestHandling(pipeline);
        }
    };

    /**
     * @param tls          null for plain TCP
     * @param http2        serve HTTP/2 too (kv.http2)
     * @param storeWorkers where the handler runs, null for the event loop
     * @param connections  every accepted connection is added, for closing them at stop
     */
    ProtocolPipelines(SslContext tls, boolean http2, int maxValueSize, KvHandler handler,
                      EventExecutorGroup storeWorkers, ChannelGroup connections) {
        this.tls = tls;
        this.http2 = http2;
        this.maxValueSize = maxValueSize;
        this.handler = handler;
        this.storeWorkers = storeWorkers;
        this.connections = connections;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        connections.add(channel);
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast(ERRORS, ConnectionErrors.INSTANCE);
        if (tls != null) {
            pipeline.addBefore(ERRORS, "tls", tls.newHandler(channel.alloc()));
            pipeline.addBefore(ERRORS, "alpn", new AlpnChoice());
        } else if (http2) {
            addCleartextHttp2OrHttp1(pipeline);
        } else {
            addHttp1(pipeline);
        }
    }

    private void addHttp1(ChannelPipeline pipeline) {
        pipeline.addBefore(ERRORS, "http1", newHttp1Codec());
        addRequestHandling(pipeline);
    }

    /** HTTP/2 frames in and out, each stream a child channel set up by {@link #streams}. */
    private void addHttp2(ChannelPipeline pipeline) {
        pipeline.addBefore(ERRORS, "http2", newHttp2FrameCodec());
        pipeline.addBefore(ERRORS, "streams", new Http2MultiplexHandler(streams));
    }

    /** The aggregator and the handler, after whatever turns bytes or stream frames into HTTP objects. */
    private void addRequestHandling(ChannelPipeline pipeline) {
        pipeline.addBefore(ERRORS, "aggregator", new ValueSizeAggregator(maxValueSize));
        pipeline.addBefore(storeWorkers, ERRORS, "kv", handler);
    }

    /**
     * Netty's cleartext handler looks at the first bytes: the HTTP/2 preface switches to {@link #addHttp2}; anything
     * else goes to an HTTP/1 codec with an upgrade handler (that takes {@code Upgrade: h2c} requests to HTTP/2), and
     * {@link Http1OnFirstRequest} adds the HTTP/1 request handling once the first plain request arrives.
     */
    private void addCleartextHttp2OrHttp1(ChannelPipeline pipeline) {
        HttpServerCodec codec = newHttp1Codec();
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(codec, protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                        ? new Http2ServerUpgradeCodec(newHttp2FrameCodec(), new Http2MultiplexHandler(streams))
                        : null, maxValueSize);
        ChannelInitializer<Channel> priorKnowledge = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel channel) {
                addHttp2(channel.pipeline());
            }
        };
        pipeline.addBefore(ERRORS, "h2c", new CleartextHttp2ServerUpgradeHandler(codec, upgrade, priorKnowledge));
        pipeline.addBefore(ERRORS, "http1-or-h2c", new Http1OnFirstRequest());
    }

    private static HttpServerCodec newHttp1Codec() {
        return new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, MAX_CHUNK);
    }

    private static Http2FrameCodec newHttp2FrameCodec() {
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS))
                .build();
    }

    /**
     * On an h2c port, decides by the first message it sees: an HTTP object means the client speaks HTTP/1.1, so the
     * request handling is added behind it; anything else is HTTP/2 (prior knowledge or upgrade), whose handlers now
     * stand in front and deliver requests on stream channels. Either way it then leaves the pipeline.
     */
    private final class Http1OnFirstRequest extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            if (message instanceof HttpObject) {
                addRequestHandling(ctx.pipeline());
            }
            ctx.fireChannelRead(message);
            ctx.pipeline().remove(this);
        }
    }

    /** After the TLS handshake: HTTP/2 or HTTP/1.1 as ALPN chose (HTTP/1.1 for a client without ALPN). */
    private final class AlpnChoice extends ApplicationProtocolNegotiationHandler {
        AlpnChoice() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            switch (protocol) {
                case ApplicationProtocolNames.HTTP_2 -> addHttp2(ctx.pipeline());
                case ApplicationProtocolNames.HTTP_1_1 -> addHttp1(ctx.pipeline());
                default -> throw new IllegalStateException("ALPN chose " + protocol + ", which is not offered");
            }
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            ConnectionErrors.close(ctx, cause);
        }
    }
}
