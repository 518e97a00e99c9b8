package dev.jload.kv.http;

import dev.jload.kv.Fatal;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;

/**
 * What an error on a connection or an HTTP/2 stream does: halt if it is heap exhaustion ({@link Fatal}), else one line
 * on stderr (none for I/O errors such as a reset, a client's routine) and close the channel. As a handler it ends
 * every connection's pipeline, so errors never reach Netty's multi-line "reached the tail" warning.
 */
@Sharable
final class ConnectionErrors extends ChannelInboundHandlerAdapter {
    static final ConnectionErrors INSTANCE = new ConnectionErrors();

    private ConnectionErrors() {
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        close(ctx, cause);
    }

    /** Reports {@code cause} (see the class comment) and closes the channel of {@code ctx}. */
    static void close(ChannelHandlerContext ctx, Throwable cause) {
        Fatal.haltIfHeapExhausted(cause);
        if (!(cause instanceof IOException)) {
            String what = Responses.isHttp2Stream(ctx.channel()) ? "an HTTP/2 stream of " : "connection ";
            System.err.println("kv-service: closing " + what + ctx.channel().remoteAddress() + ": " + cause);
        }
        ctx.close();
    }
}
