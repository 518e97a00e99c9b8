package dev.jload.kv.http;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Random keys and values for random_set / random_get / random_mget. Values are slices of a 2 MiB pool of random bytes
 * filled once, at a random offset: every value differs from the next (about 2 million start points) without paying
 * for fresh random bytes per request. Values longer than half the pool are built by copying the pool cyclically from a
 * random offset.
 */
final class RandomValues {
    private static final int POOL_SIZE = 2 << 20;

    /** A value to store: {@code length} bytes of {@code array} from {@code offset}. */
    record Slice(byte[] array, int offset, int length) {
    }

    private final byte[] pool = new byte[POOL_SIZE];

    RandomValues() {
        ThreadLocalRandom.current().nextBytes(pool);
    }

    /** A random key number in (0, keyRange]. */
    static long key(int keyRange) {
        return ThreadLocalRandom.current().nextInt(keyRange) + 1L;
    }

    /** {@code length} random bytes; {@code length} was range-checked against kv.maxValueSize by the caller. */
    Slice value(int length) {
        int start = ThreadLocalRandom.current().nextInt(POOL_SIZE - Math.min(length, POOL_SIZE / 2) + 1);
        if (length <= POOL_SIZE / 2) {
            return new Slice(pool, start, length);
        }
        byte[] value = new byte[length];
        for (int filled = 0; filled < length; ) {
            int n = Math.min(length - filled, POOL_SIZE - start);
            System.arraycopy(pool, start, value, filled, n);
            filled += n;
            start = 0;
        }
        return new Slice(value, 0, length);
    }
}
