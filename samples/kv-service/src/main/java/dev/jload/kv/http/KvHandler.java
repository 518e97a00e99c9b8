package dev.jload.kv.http;

import dev.jload.kv.store.Key;
import dev.jload.kv.store.KvStore;
import dev.jload.kv.store.ValueTooLargeException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Routes one aggregated HTTP request to its endpoint and writes the response (flushed once per read batch). Bad input
 * of any kind becomes a 4xx with a one-line text body; see the README's endpoint reference. The same for HTTP/1.1 and
 * for an HTTP/2 stream (see {@link ProtocolPipelines}); errors go on to {@link ConnectionErrors}.
 */
@Sharable
final class KvHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String ENDPOINTS =
            "endpoints are /random_set, /random_get, /random_mget, /kv/{key}, /stats, /health";

    private final KvStore store;
    private final int maxValueSize;
    private final StatsReport stats;
    private final RandomValues randomValues = new RandomValues();

    KvHandler(KvStore store, int maxValueSize, StatsReport stats) {
        this.store = store;
        this.maxValueSize = maxValueSize;
        this.stats = stats;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        FullHttpResponse response;
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        try {
            if (request.decoderResult().isFailure()) {
                keepAlive = false;
                throw malformed(request.decoderResult().cause());
            }
            response = route(ctx.alloc(), request);
        } catch (BadRequestException e) {
            response = Responses.text(ctx.alloc(), e.status, e.getMessage());
            if (e.allow != null) {
                response.headers().set(HttpHeaderNames.ALLOW, e.allow);
            }
        } catch (ValueTooLargeException e) {
            response = Responses.text(ctx.alloc(), HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, e.getMessage());
        } catch (IllegalStateException e) {
            response = Responses.text(ctx.alloc(), HttpResponseStatus.SERVICE_UNAVAILABLE, "store busy: " + e.getMessage());
        } catch (RuntimeException e) {
            // Not the client's fault (e.g. JE cannot write its log): say so on one line and keep serving.
            System.err.println("kv-service: " + request.method() + " " + request.uri() + " failed: " + e);
            response = Responses.text(ctx.alloc(), HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "store failure: " + e.toString().lines().findFirst().orElse(""));
        }
        if (Responses.isHttp2Stream(ctx.channel())) {
            // The response ends the stream, not the connection: no connection-specific headers (RFC 9113 8.2.2).
            ctx.write(response, ctx.voidPromise());
        } else if (keepAlive) {
            Responses.keepAlive(response, request.protocolVersion() == HttpVersion.HTTP_1_0);
            ctx.write(response, ctx.voidPromise());
        } else {
            Responses.closing(response);
            ctx.write(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    private static BadRequestException malformed(Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            return new BadRequestException(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "request line or headers too long: " + cause.getMessage());
        }
        return BadRequestException.badRequest("malformed HTTP request: " + cause.getMessage());
    }

    private FullHttpResponse route(ByteBufAllocator alloc, FullHttpRequest request) {
        QueryStringDecoder uri;
        try {
            uri = new QueryStringDecoder(request.uri());
            uri.parameters();
        } catch (IllegalArgumentException e) {
            throw BadRequestException.badRequest("malformed URI " + QueryParams.abbreviate(request.uri()) + ": "
                    + e.getMessage());
        }
        HttpMethod method = request.method();
        String path = uri.path();
        QueryParams params = new QueryParams(uri.parameters());
        switch (path) {
            case "/random_set" -> {
                requireMethod(method, path, "GET");
                return randomSet(alloc, params);
            }
            case "/random_get" -> {
                requireMethod(method, path, "GET");
                return randomGet(alloc, params);
            }
            case "/random_mget" -> {
                requireMethod(method, path, "GET");
                return randomMget(alloc, params);
            }
            case "/stats" -> {
                requireMethod(method, path, "GET");
                return Responses.withBody(HttpResponseStatus.OK, Responses.JSON, Unpooled.wrappedBuffer(stats.render()));
            }
            case "/health" -> {
                requireMethod(method, path, "GET");
                return Responses.text(alloc, HttpResponseStatus.OK, "ok");
            }
            default -> {
                if (path.startsWith("/kv/")) {
                    return keyValue(alloc, request, path.substring("/kv/".length()));
                }
                throw new BadRequestException(HttpResponseStatus.NOT_FOUND,
                        "no such path " + QueryParams.abbreviate(path) + ": " + ENDPOINTS);
            }
        }
    }

    private FullHttpResponse randomSet(ByteBufAllocator alloc, QueryParams params) {
        int keyRange = params.keyRange();
        int valueSize = params.valueSize(maxValueSize);
        long key = RandomValues.key(keyRange);
        RandomValues.Slice value = randomValues.value(valueSize);
        store.put(Key.ofNumber(key), value.array(), value.offset(), value.length());
        return Responses.text(alloc, HttpResponseStatus.OK, "stored key " + key + " (" + valueSize + " bytes)");
    }

    private FullHttpResponse randomGet(ByteBufAllocator alloc, QueryParams params) {
        String key = Long.toString(RandomValues.key(params.keyRange()));
        byte[] value = store.get(Key.ofText(key));
        return value != null ? Responses.value(value) : Responses.miss(alloc, key);
    }

    private FullHttpResponse randomMget(ByteBufAllocator alloc, QueryParams params) {
        int keyRange = params.keyRange();
        int keyNum = params.keyNum();
        MgetBody body = new MgetBody(alloc, keyNum);
        for (int i = 0; i < keyNum; i++) {
            String key = Long.toString(RandomValues.key(keyRange));
            body.add(key, store.get(Key.ofText(key)));
        }
        int found = body.found();
        FullHttpResponse response = Responses.withBody(HttpResponseStatus.OK, Responses.OCTETS, body.finish());
        response.headers().setInt("x-kv-found", found).setInt("x-kv-requested", keyNum);
        return response;
    }

    private FullHttpResponse keyValue(ByteBufAllocator alloc, FullHttpRequest request, String keyText) {
        HttpMethod method = request.method();
        requireMethod(method, "/kv/{key}", "GET", "PUT", "DELETE");
        Key key = checkedKey(keyText);
        if (method.equals(HttpMethod.GET)) {
            byte[] value = store.get(key);
            return value != null ? Responses.value(value) : Responses.miss(alloc, keyText);
        }
        if (method.equals(HttpMethod.DELETE)) {
            return store.delete(key)
                    ? Responses.text(alloc, HttpResponseStatus.OK, "deleted key " + keyText)
                    : Responses.miss(alloc, keyText);
        }
        byte[] value = ByteBufUtil.getBytes(request.content());
        store.put(key, value, 0, value.length);
        return Responses.text(alloc, HttpResponseStatus.OK, "stored key " + keyText + " (" + value.length + " bytes)");
    }

    private static Key checkedKey(String keyText) {
        if (keyText.isEmpty()) {
            throw BadRequestException.badRequest("missing key: use /kv/{key} with a key of 1.." + Key.MAX_LENGTH
                    + " bytes");
        }
        if (keyText.getBytes(StandardCharsets.UTF_8).length > Key.MAX_LENGTH) {
            throw BadRequestException.badRequest("key " + QueryParams.abbreviate(keyText) + " is longer than "
                    + Key.MAX_LENGTH + " bytes");
        }
        if (keyText.chars().anyMatch(Character::isISOControl)) {
            throw BadRequestException.badRequest("key " + QueryParams.abbreviate(keyText)
                    + " contains control characters");
        }
        return Key.ofText(keyText);
    }

    private static void requireMethod(HttpMethod method, String path, String... allowed) {
        for (String name : allowed) {
            if (method.name().equals(name)) {
                return;
            }
        }
        String allow = String.join(", ", allowed);
        throw new BadRequestException(HttpResponseStatus.METHOD_NOT_ALLOWED,
                "method " + method.name() + " is not allowed on " + path + ": use " + allow).withAllow(allow);
    }
}
