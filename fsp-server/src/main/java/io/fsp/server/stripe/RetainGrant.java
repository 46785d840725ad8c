package io.fsp.server.stripe;

import io.fsp.config.Durations;
import io.fsp.extension.FspOption;
import io.fsp.server.auth.UserAccount;
import java.time.Duration;

/**
 * {@code retain-user = NAME=DURATION} (repeatable): user {@code NAME} may evacuate ({@code FSPO retain}) for at most
 * {@code DURATION}, within the server's {@code max-retain}. Retention holds relay space for weeks for a collector
 * that comes later, so it is a right the operator grants by name: nobody else, and never an anonymous user, has it.
 */
public record RetainGrant(String user, Duration most) {
    public RetainGrant {
        if (user.equals(UserAccount.ANONYMOUS) || user.equals("ftp")) {
            throw new IllegalArgumentException("retain-user: " + user + " (expected: a named user; anonymous users"
                    + " never retain)");
        }
        if (most.compareTo(FspOption.MIN_RETAIN) < 0) {
            throw new IllegalArgumentException("retain-user: " + user + "=" + Durations.format(most)
                    + " (expected: at least " + Durations.format(FspOption.MIN_RETAIN) + ")");
        }
    }

    /** {@code NAME=DURATION}, e.g. {@code alice=7d}. */
    public static RetainGrant parse(String value) {
        int eq = value.indexOf('=');
        if (eq <= 0 || eq == value.length() - 1) {
            throw new IllegalArgumentException("retain-user: '" + value + "' (expected: NAME=DURATION, e.g. alice=7d)");
        }
        Duration most;
        try {
            most = Durations.parse(value.substring(eq + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("retain-user: " + e.getMessage());
        }
        return new RetainGrant(value.substring(0, eq).strip(), most);
    }
}
