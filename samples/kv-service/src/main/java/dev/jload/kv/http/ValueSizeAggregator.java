package dev.jload.kv.http;

import dev.jload.kv.config.Sizes;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Netty's aggregator with the body limit set to {@code kv.maxValueSize}; an oversized body gets a 413 with a one-line
 * reason instead of Netty's empty 413 (the connection closes unless the client can still skip the body; on HTTP/2
 * the stream is reset after the 413 instead, and the connection stays).
 */
final class ValueSizeAggregator extends HttpObjectAggregator {
    private final int maxValueSize;

    ValueSizeAggregator(int maxValueSize) {
        super(maxValueSize);
        this.maxValueSize = maxValueSize;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        FullHttpResponse response = Responses.text(ctx.alloc(), HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request body larger than kv.maxValueSize=" + Sizes.formatBytes(maxValueSize)
                        + ": send a smaller value or raise kv.maxValueSize");
        boolean close = oversized instanceof FullHttpMessage
                || (!HttpUtil.is100ContinueExpected(oversized) && !HttpUtil.isKeepAlive(oversized));
        if (Responses.isHttp2Stream(ctx.channel())) {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else if (close) {
            Responses.closing(response);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }
}
