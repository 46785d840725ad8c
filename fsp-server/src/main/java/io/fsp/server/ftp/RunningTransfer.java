package io.fsp.server.ftp;

/**
 * What the session and ABOR need of the data transfer between its 150 and its final reply; the transfer itself
 * lives with the data connections ({@code ftp.data.Transfer}).
 */
public interface RunningTransfer {
    /**
     * Stops the transfer by closing its data connection; it then ends with 426 through its usual path.
     * {@code reply} false means nobody is left to answer (the control connection closed).
     */
    void abort(boolean reply);

    /** Runs {@code r} once the transfer has sent its final reply (ABOR answers 226 after the 426). */
    void whenFinished(Runnable r);
}
