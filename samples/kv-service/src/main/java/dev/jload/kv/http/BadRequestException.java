package dev.jload.kv.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/** A request the service refuses: the status (400, 404, 405, 413, …) and the one-line reason sent back as text. */
final class BadRequestException extends RuntimeException {
    final HttpResponseStatus status;
    /** For 405: the methods the path accepts, sent as the Allow header. */
    String allow;

    BadRequestException(HttpResponseStatus status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    BadRequestException withAllow(String methods) {
        this.allow = methods;
        return this;
    }

    static BadRequestException badRequest(String message) {
        return new BadRequestException(HttpResponseStatus.BAD_REQUEST, message);
    }
}
