package dev.jload.kv.http;

import dev.jload.kv.config.KvConfig;
import dev.jload.kv.store.KvStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Netty server: epoll when available (NIO otherwise), its threads, the listener and its connections. Each
 * connection's pipeline (HTTP/1.1, HTTP/2, TLS, as configured) is built by {@link ProtocolPipelines} and ends in
 * {@link KvHandler}. Heap and offheap stores run on the event loops ({@code kv.threads} of them); the blocking bdb
 * store runs on {@code kv.threads} worker threads, each HTTP/1 connection (or HTTP/2 stream) pinned to one worker so
 * its responses stay in order.
 */
public final class HttpServer implements AutoCloseable {
    private static final int ACCEPT_BACKLOG = 4096;

    private final KvConfig config;
    private final ProtocolPipelines pipelines;
    private final boolean epoll = Epoll.isAvailable();
    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final EventExecutorGroup storeWorkers;
    private final ServingThreads acceptThreads = new ServingThreads("kv-accept");
    private final ServingThreads ioLoopThreads = new ServingThreads("kv-io");
    private final ServingThreads storeThreads = new ServingThreads("kv-store");
    private final ChannelGroup connections = new DefaultChannelGroup("kv-connections", GlobalEventExecutor.INSTANCE);
    private Channel listener;

    /**
     * @param tls the TLS context from {@link ServerTls#context}, null for plain TCP
     */
    public HttpServer(KvConfig config, KvStore store, SslContext tls) {
        this.config = config;
        KvHandler handler = new KvHandler(store, config.maxValueSize(), new StatsReport(store, config.describe()));
        int ioThreads = store.blocking() ? Runtime.getRuntime().availableProcessors() : config.threads();
        this.acceptor = epoll ? new EpollEventLoopGroup(1, acceptThreads) : new NioEventLoopGroup(1, acceptThreads);
        this.workers = epoll ? new EpollEventLoopGroup(ioThreads, ioLoopThreads)
                : new NioEventLoopGroup(ioThreads, ioLoopThreads);
        this.storeWorkers = store.blocking() ? new DefaultEventExecutorGroup(config.threads(), storeThreads) : null;
        this.pipelines = new ProtocolPipelines(tls, config.http2(), config.maxValueSize(), handler, storeWorkers,
                connections);
    }

    /** Binds and starts serving; returns the bound port (useful with kv.port=0). */
    public int start() throws InterruptedException {
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(channelType)
                .option(ChannelOption.SO_BACKLOG, ACCEPT_BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(pipelines);
        listener = bootstrap.bind(config.bind(), config.port()).sync().channel();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** "epoll" or "nio", for the start line. */
    public String transport() {
        return epoll ? "epoll" : "nio";
    }

    /**
     * Stops accepting, closes open connections (a request being handled completes first on its thread), then stops
     * all threads; waits at most a few seconds.
     */
    @Override
    public void close() {
        acceptThreads.stopping();
        ioLoopThreads.stopping();
        storeThreads.stopping();
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (storeWorkers != null) {
            storeWorkers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
