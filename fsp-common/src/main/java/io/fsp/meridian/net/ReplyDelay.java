package io.fsp.meridian.net;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How long to hold back the answer to a probe from a given prober. Production uses {@link #NONE};
 * tests use it to give loopback nodes distinct RTTs (there is no netem to delay packets in the kernel).
 */
@FunctionalInterface
public interface ReplyDelay {
    ReplyDelay NONE = prober -> Duration.ZERO;

    Duration delayFor(InetSocketAddress prober);
}
