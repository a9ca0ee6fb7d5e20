package dev.vigil.worker.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * Newline-delimited frames on a byte stream. A frame is the bytes before a {@code '\n'}; one longer
 * than {@link #MAX_FRAME} bytes is refused with {@link FrameTooLong} before it is read whole, and the
 * caller closes the connection (DESIGN.md §6).
 */
final class FrameIO {
  /** Longest frame, bytes, not counting its newline (1 MiB). */
  static final int MAX_FRAME = 1 << 20;
  private static final int BUFFER = 16 * 1024;

  private final InputStream in;
  private final byte[] buf = new byte[BUFFER];
  private int pos;
  private int end;
  private byte[] frame = new byte[256];
  private int length;

  FrameIO(InputStream in) {
    this.in = in;
  }

  /** A frame longer than {@link #MAX_FRAME}. */
  static final class FrameTooLong extends IOException {
    private static final long serialVersionUID = 1L;

    FrameTooLong() {
      super("frame longer than " + MAX_FRAME + " bytes");
    }
  }

  /** The next frame, or {@code null} at the end of the stream (a partial last frame is dropped). */
  byte[] next() throws IOException {
    length = 0;
    while (true) {
      if (pos == end) {
        end = in.read(buf, 0, buf.length);
        pos = 0;
        if (end <= 0) {
          end = 0;
          return null;
        }
      }
      int nl = -1;
      for (int i = pos; i < end; i++) {
        if (buf[i] == '\n') {
          nl = i;
          break;
        }
      }
      int take = (nl < 0 ? end : nl) - pos;
      if (length + take > MAX_FRAME) {
        throw new FrameTooLong();
      }
      if (length + take > frame.length) {
        frame = Arrays.copyOf(frame, Math.min(MAX_FRAME, Math.max(length + take, 2 * frame.length)));
      }
      System.arraycopy(buf, pos, frame, length, take);
      length += take;
      if (nl >= 0) {
        pos = nl + 1;
        byte[] out = Arrays.copyOf(frame, length);
        if (frame.length > BUFFER) {
          frame = new byte[256];
        }
        return out;
      }
      pos = end;
    }
  }

  /** Writes one encoded line, refusing one longer than {@link #MAX_FRAME}. */
  static void write(SocketChannel out, byte[] line) throws IOException {
    if (line.length - 1 > MAX_FRAME) {
      throw new IllegalArgumentException("frame of " + (line.length - 1) + " bytes is longer than " + MAX_FRAME);
    }
    ChannelStreams.write(out, line);
  }
}
