package io.fsp.client.control;

/**
 * The reply codes the client waits for (RFC 959 §4.2, RFC 2228, RFC 2428, GFD.20 §3.7, docs/protocol.md §1), one
 * name each.
 */
public final class ReplyCodes {
    /** GridFTP's performance marker: the bytes an FCOL has verified so far. */
    public static final int PERF_MARKER = 112;
    public static final int OPENING_DATA_CONNECTION = 150;
    /** FSP extension: a preliminary line announcing part of a striped transfer. */
    public static final int FSP_ANNOUNCEMENT = 151;
    public static final int COMMAND_OK = 200;
    public static final int READY = 220;
    public static final int TRANSFER_COMPLETE = 226;
    public static final int ENTERING_EXTENDED_PASSIVE = 229;
    public static final int LOGGED_IN = 230;
    public static final int SECURITY_EXCHANGE_OK = 234;
    public static final int NEED_PASSWORD = 331;

    private ReplyCodes() {
    }
}
