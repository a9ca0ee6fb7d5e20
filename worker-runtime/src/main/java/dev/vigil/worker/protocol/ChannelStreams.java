package dev.vigil.worker.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Reads and writes a socket channel directly. Not {@code java.nio.channels.Channels}: on Java 17
 * its streams share the channel's blocking lock, so a reader blocked in {@code read} stops every
 * writer of the same connection.
 */
final class ChannelStreams {
  private ChannelStreams() {}

  static InputStream in(SocketChannel ch) {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return len == 0 ? 0 : ch.read(ByteBuffer.wrap(b, off, len));
      }
    };
  }

  /** Writes all of {@code bytes}; callers serialise writers. */
  static void write(SocketChannel ch, byte[] bytes) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }
}
