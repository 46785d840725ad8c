package io.fsp.server.stripe;

import java.io.IOException;

/**
 * The transfers running now hold so many files and directories that a new plan does not fit in the
 * server's {@code max-planned} ({@link PlanBudget}): a passing condition, answered "try again later".
 */
public final class PlanBudgetExceededException extends IOException {
    private static final long serialVersionUID = 1L;

    PlanBudgetExceededException(long limit, long held, long asked) {
        this("the server's transfers hold " + held + " files and directories of its max-planned " + limit
                + ", and this one needs " + asked + " more");
    }

    private PlanBudgetExceededException(String message) {
        super(message);
    }

    static PlanBudgetExceededException ofUser(String user, long share, long held, long asked) {
        return new PlanBudgetExceededException("the transfers of user " + user + " hold " + held + " files and"
                + " directories of the " + share + " one user may (half of max-planned), and this one needs " + asked
                + " more");
    }
}
