package dev.jload.kv.http;

import java.util.List;
import java.util.Map;

/**
 * Checked access to the query parameters of one request. Integers must be plain decimal and inside the documented
 * range before anyone uses them, so no allocation or loop is ever sized by an unchecked number.
 */
final class QueryParams {
    /** keyRange may be up to 2^31-1. */
    static final long MAX_KEY_RANGE = Integer.MAX_VALUE;
    /** random_mget reads at most this many keys per request. */
    static final int MAX_KEY_NUM = 1000;

    private final Map<String, List<String>> parameters;

    QueryParams(Map<String, List<String>> parameters) {
        this.parameters = parameters;
    }

    int keyRange() {
        return (int) integer("keyRange", 1, MAX_KEY_RANGE);
    }

    int valueSize(int maxValueSize) {
        return (int) integer("valueSize", 0, maxValueSize);
    }

    int keyNum() {
        return (int) integer("keyNum", 1, MAX_KEY_NUM);
    }

    private long integer(String name, long min, long max) {
        List<String> values = parameters.get(name);
        String expected = "an integer " + min + ".." + max;
        if (values == null || values.isEmpty() || values.get(0).isEmpty()) {
            throw BadRequestException.badRequest("missing query parameter " + name + ": expected " + expected);
        }
        String text = values.get(0);
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw BadRequestException.badRequest(name + "=" + abbreviate(text) + " is not " + expected);
        }
        if (value < min || value > max) {
            throw BadRequestException.badRequest(name + "=" + text + " is out of range: expected " + expected);
        }
        return value;
    }

    /** Echoes at most 40 characters of what the client sent, on one line. */
    static String abbreviate(String text) {
        String oneLine = text.replaceAll("[\\r\\n\\t]", " ");
        return oneLine.length() <= 40 ? oneLine : oneLine.substring(0, 40) + "…";
    }
}
