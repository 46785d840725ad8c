package io.fsp.cli.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A socket channel's two directions as streams that one thread may read while another writes. (JDK 17's
 * {@code Channels.newInputStream} holds the channel's blocking lock while it waits to read, which would stop a
 * command's output behind a read of the launcher's next frame.)
 */
final class UnixStreams {
    private UnixStreams() {
    }

    static Frames frames(SocketChannel ch) {
        return new Frames(new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return len == 0 ? 0 : ch.read(ByteBuffer.wrap(b, off, len));
            }
        }, new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buf = ByteBuffer.wrap(b, off, len);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
        });
    }
}
