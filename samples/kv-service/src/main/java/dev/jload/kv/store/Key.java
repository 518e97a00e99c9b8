package dev.jload.kv.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A key as bytes with a well-mixed cached hash. random_set / random_get use the decimal form of the random number, so
 * {@code GET /kv/123} reads what {@code random_set} stored under 123.
 */
public final class Key {
    /** Longest key accepted, as in memcached. */
    public static final int MAX_LENGTH = 250;

    private final byte[] bytes;
    private final int hash;

    private Key(byte[] bytes) {
        this.bytes = bytes;
        this.hash = mix(Arrays.hashCode(bytes));
    }

    /** The key of random number {@code n}: its decimal digits. */
    public static Key ofNumber(long n) {
        return new Key(Long.toString(n).getBytes(StandardCharsets.US_ASCII));
    }

    /** A key from text; the caller has checked that it is 1..{@link #MAX_LENGTH} UTF-8 bytes. */
    public static Key ofText(String text) {
        return new Key(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The key's bytes; callers must not modify them. */
    public byte[] bytes() {
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public String toString() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** MurmurHash3's finaliser: neighbouring numbers land far apart, which keeps shard and bucket choice even. */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
