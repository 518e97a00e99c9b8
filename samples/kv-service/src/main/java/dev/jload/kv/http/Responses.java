package dev.jload.kv.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Builds the service's HTTP responses: one-line text, raw value bytes, JSON. Content-Length is always set; Connection
 * headers only on HTTP/1 connections.
 */
final class Responses {
    static final AsciiString TEXT = AsciiString.cached("text/plain; charset=utf-8");
    static final AsciiString OCTETS = AsciiString.cached("application/octet-stream");
    static final AsciiString JSON = AsciiString.cached("application/json");
    /** {@code X-Kv: hit} or {@code miss} on random_get and GET /kv/{key}, so a load tool can tell misses apart cheaply. */
    static final AsciiString RESULT_HEADER = AsciiString.cached("x-kv");
    static final AsciiString HIT = AsciiString.cached("hit");
    static final AsciiString MISS = AsciiString.cached("miss");

    private Responses() {
    }

    /** A text response whose body is {@code line} plus a newline. */
    static FullHttpResponse text(ByteBufAllocator alloc, HttpResponseStatus status, String line) {
        ByteBuf body = alloc.buffer(line.length() + 8);
        body.writeCharSequence(line, StandardCharsets.UTF_8);
        body.writeByte('\n');
        return withBody(status, TEXT, body);
    }

    /** The value bytes as they are (the store never changes a value it handed out, so no copy is made). */
    static FullHttpResponse value(byte[] value) {
        FullHttpResponse response = withBody(HttpResponseStatus.OK, OCTETS, Unpooled.wrappedBuffer(value));
        response.headers().set(RESULT_HEADER, HIT);
        return response;
    }

    static FullHttpResponse miss(ByteBufAllocator alloc, String key) {
        FullHttpResponse response = text(alloc, HttpResponseStatus.NOT_FOUND, "miss: key " + key + " is not stored");
        response.headers().set(RESULT_HEADER, MISS);
        return response;
    }

    static FullHttpResponse withBody(HttpResponseStatus status, AsciiString contentType, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }

    /** Marks the response for a client that keeps the connection (HTTP/1.0 needs the header spelled out). */
    static void keepAlive(FullHttpResponse response, boolean http10) {
        if (http10) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    /**
     * True when {@code channel} is one HTTP/2 stream: its response ends the stream, and connection-specific headers
     * (Connection, Keep-Alive) are illegal there.
     */
    static boolean isHttp2Stream(Channel channel) {
        return channel instanceof Http2StreamChannel;
    }

    static void closing(FullHttpResponse response) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
}
