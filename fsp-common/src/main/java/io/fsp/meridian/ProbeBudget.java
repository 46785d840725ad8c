package io.fsp.meridian;

/**
 * A token bucket of probes per second (burst: one second's worth). Caps the probes that messages
 * from others can make a node send, whatever their number.
 */
final class ProbeBudget {
    private final double perSecond;
    private double tokens;
    private long at;

    ProbeBudget(double perSecond, long nowNanos) {
        this.perSecond = perSecond;
        this.tokens = perSecond;
        this.at = nowNanos;
    }

    boolean take(long nowNanos) {
        tokens = Math.min(perSecond, tokens + (nowNanos - at) * perSecond / 1e9);
        at = nowNanos;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
}
