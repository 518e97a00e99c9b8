package dev.jload.kv.http;

import dev.jload.kv.config.KvConfig;
import dev.jload.kv.store.KvStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Netty HTTP/1.1 server: epoll when available (NIO otherwise), keep-alive, a codec and an aggregator bounded by
 * {@code kv.maxValueSize}, then {@link KvHandler}. Heap and offheap stores run on the event loops ({@code kv.threads}
 * of them); the blocking bdb store runs on {@code kv.threads} worker threads, each connection pinned to one worker so
 * its responses stay in order.
 */
public final class HttpServer implements AutoCloseable {
    private static final int MAX_INITIAL_LINE = 4096;
    private static final int MAX_HEADER_BYTES = 8192;
    private static final int MAX_CHUNK = 64 << 10;
    private static final int ACCEPT_BACKLOG = 4096;

    private final KvConfig config;
    private final KvHandler handler;
    private final boolean epoll = Epoll.isAvailable();
    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final EventExecutorGroup storeWorkers;
    private final ServingThreads acceptThreads = new ServingThreads("kv-accept");
    private final ServingThreads ioLoopThreads = new ServingThreads("kv-io");
    private final ServingThreads storeThreads = new ServingThreads("kv-store");
    private final ChannelGroup connections = new DefaultChannelGroup("kv-connections", GlobalEventExecutor.INSTANCE);
    private Channel listener;

    public HttpServer(KvConfig config, KvStore store) {
        this.config = config;
        this.handler = new KvHandler(store, config.maxValueSize(), new StatsReport(store, config.describe()));
        int ioThreads = store.blocking() ? Runtime.getRuntime().availableProcessors() : config.threads();
        this.acceptor = epoll ? new EpollEventLoopGroup(1, acceptThreads) : new NioEventLoopGroup(1, acceptThreads);
        this.workers = epoll ? new EpollEventLoopGroup(ioThreads, ioLoopThreads)
                : new NioEventLoopGroup(ioThreads, ioLoopThreads);
        this.storeWorkers = store.blocking() ? new DefaultEventExecutorGroup(config.threads(), storeThreads) : null;
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
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        connections.add(channel);
                        ChannelPipeline pipeline = channel.pipeline();
                        pipeline.addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, MAX_CHUNK));
                        pipeline.addLast(new ValueSizeAggregator(config.maxValueSize()));
                        pipeline.addLast(storeWorkers, "kv", handler);
                    }
                });
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
