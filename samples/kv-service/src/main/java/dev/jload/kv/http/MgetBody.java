package dev.jload.kv.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * The random_mget response body, in memcached's text style, one item per requested key in request order:
 *
 * <pre>
 * VALUE &lt;key&gt; &lt;bytes&gt;\r\n&lt;bytes of the value&gt;\r\n   a hit
 * MISS &lt;key&gt;\r\n                                a miss
 * SKIP &lt;key&gt; &lt;bytes&gt;\r\n                        a hit left out: the body already holds {@link #MAX_VALUE_BYTES}
 * END &lt;found&gt; &lt;requested&gt;\r\n
 * </pre>
 *
 * Values are appended without copying; the cap keeps one response's memory bounded whatever keyNum and value sizes are.
 */
final class MgetBody {
    /** Value bytes one mget response may carry. */
    static final int MAX_VALUE_BYTES = 8 << 20;
    private static final byte[] CRLF = {'\r', '\n'};

    private final ByteBufAllocator alloc;
    private final CompositeByteBuf body;
    private int found;
    private int requested;
    private long valueBytes;

    MgetBody(ByteBufAllocator alloc, int keyNum) {
        this.alloc = alloc;
        this.body = alloc.compositeBuffer(3 * keyNum + 1);
    }

    void add(String key, byte[] value) {
        requested++;
        if (value == null) {
            line("MISS " + key + "\r\n");
            return;
        }
        found++;
        if (valueBytes + value.length > MAX_VALUE_BYTES) {
            line("SKIP " + key + " " + value.length + "\r\n");
            return;
        }
        valueBytes += value.length;
        line("VALUE " + key + " " + value.length + "\r\n");
        body.addComponent(true, Unpooled.wrappedBuffer(value));
        body.addComponent(true, Unpooled.wrappedBuffer(CRLF));
    }

    int found() {
        return found;
    }

    /** Appends the END line and hands the body over. */
    ByteBuf finish() {
        line("END " + found + " " + requested + "\r\n");
        return body;
    }

    private void line(String text) {
        ByteBuf buf = alloc.buffer(text.length());
        buf.writeCharSequence(text, StandardCharsets.US_ASCII);
        body.addComponent(true, buf);
    }
}
