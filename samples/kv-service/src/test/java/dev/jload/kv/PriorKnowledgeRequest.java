package dev.jload.kv;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Just enough HTTP/2 to send one request in cleartext with prior knowledge (RFC 9113 3.3), which java.net.http cannot:
 * the connection preface, an empty SETTINGS frame, one HEADERS frame whose fields are HPACK literals without indexing
 * or Huffman coding (RFC 7541 6.2.2), an optional DATA frame; then it reads frames until stream 1 ends.
 */
final class PriorKnowledgeRequest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int GOAWAY = 0x7;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int STREAM = 1;
    /** HPACK "indexed header field" of static table entry 8, {@code :status: 200}: how an encoder sends a 200. */
    private static final int STATUS_200 = 0x80 | 8;

    private PriorKnowledgeRequest() {
    }

    /**
     * The response on stream 1: its HPACK header block as received, and its body.
     *
     * @param headerBlock the HEADERS frame's payload
     * @param body        the DATA frames' payloads
     */
    record Response(byte[] headerBlock, byte[] body) {
        boolean statusIs200() {
            return headerBlock.length > 0 && (headerBlock[0] & 0xff) == STATUS_200;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Sends {@code method path} (with {@code body} unless null) on a new connection to 127.0.0.1:port. */
    static Response send(int port, String method, String path, byte[] body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            out.write(PREFACE);
            writeFrame(out, SETTINGS, 0, 0, new byte[0]);
            ByteArrayOutputStream fields = new ByteArrayOutputStream();
            literal(fields, ":method", method);
            literal(fields, ":scheme", "http");
            literal(fields, ":path", path);
            literal(fields, ":authority", "127.0.0.1:" + port);
            writeFrame(out, HEADERS, END_HEADERS | (body == null ? END_STREAM : 0), STREAM, fields.toByteArray());
            if (body != null) {
                writeFrame(out, DATA, END_STREAM, STREAM, body);
            }
            out.flush();
            return readResponse(new DataInputStream(socket.getInputStream()), out);
        }
    }

    private static Response readResponse(DataInputStream in, DataOutputStream out) throws IOException {
        byte[] headerBlock = new byte[0];
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fff_ffff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            if (type == SETTINGS && (flags & ACK) == 0) {
                writeFrame(out, SETTINGS, ACK, 0, new byte[0]);
                out.flush();
            } else if (type == GOAWAY || type == RST_STREAM) {
                int errorAt = type == GOAWAY ? 4 : 0;
                throw new IOException("the server sent " + (type == GOAWAY ? "GOAWAY" : "RST_STREAM") + " with error "
                        + ByteBuffer.wrap(payload).getInt(errorAt));
            } else if (stream == STREAM && type == HEADERS) {
                headerBlock = payload;
            } else if (stream == STREAM && type == DATA) {
                body.write(payload);
            }
            if (stream == STREAM && (type == HEADERS || type == DATA) && (flags & END_STREAM) != 0) {
                return new Response(headerBlock, body.toByteArray());
            }
        }
    }

    private static void writeFrame(DataOutputStream out, int type, int flags, int stream, byte[] payload)
            throws IOException {
        out.writeShort(payload.length >>> 8);
        out.writeByte(payload.length);
        out.writeByte(type);
        out.writeByte(flags);
        out.writeInt(stream);
        out.write(payload);
    }

    /** "Literal header field without indexing, new name", both strings raw (no Huffman), each under 127 bytes. */
    private static void literal(ByteArrayOutputStream block, String name, String value) {
        block.write(0x00);
        string(block, name);
        string(block, value);
    }

    private static void string(ByteArrayOutputStream block, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= 127) {
            throw new IllegalArgumentException("HPACK strings of 127 bytes or more need a longer length: " + text);
        }
        block.write(bytes.length);
        block.write(bytes, 0, bytes.length);
    }
}
