package io.fsp.server.join;

import java.time.Instant;

/**
 * One invite as the state directory keeps it: {@code ID VERIFIER EXPIRES STATE WRONG} on a line (expiry in epoch
 * seconds, {@code WRONG} the wrong codes tried so far).
 */
public record Invite(String id, String verifier, Instant expires, State state, int wrong) {
    public enum State { OPEN, USED, REVOKED, BURNT }

    static Invite parse(String line) {
        String[] f = line.trim().split(" ");
        if (f.length != 5) {
            throw new IllegalArgumentException("invite line: expected ID VERIFIER EXPIRES STATE WRONG");
        }
        return new Invite(f[0], f[1], Instant.ofEpochSecond(Long.parseLong(f[2])),
                State.valueOf(f[3].toUpperCase(java.util.Locale.ROOT)), Integer.parseInt(f[4]));
    }

    String line() {
        return id + " " + verifier + " " + expires.getEpochSecond() + " " + state.name().toLowerCase(java.util.Locale.ROOT)
                + " " + wrong;
    }

    Invite with(State s, int w) {
        return new Invite(id, verifier, expires, s, w);
    }

    /** What {@code --list} and the refusals call its state at {@code now}. */
    public String status(Instant now) {
        return state == State.OPEN && !now.isBefore(expires) ? "expired" : switch (state) {
            case OPEN -> "open";
            case USED -> "used";
            case REVOKED -> "revoked";
            case BURNT -> "burnt (too many wrong codes)";
        };
    }
}
