package io.fsp.ftp;

/**
 * The FTP reply codes of FSP (RFC 959 §4.2, RFC 2228, RFC 2428, RFC 3659, RFC 4217, GFD.20 §3.7,
 * docs/protocol.md §1), one name each: those the server sends and the client waits for.
 */
public enum ReplyCode {
    /** GridFTP's performance marker (GFD.20 §3.7): a preliminary reply with the bytes moved so far; FCOL sends it. */
    PERF_MARKER(112),
    OPENING_DATA_CONNECTION(150),
    /** FSP extension: a preliminary line announcing part of a striped transfer (docs/protocol.md §1, "FSP extension"). */
    FSP_ANNOUNCEMENT(151),
    COMMAND_OK(200),
    NOT_NEEDED(202),
    SYSTEM_STATUS(211),
    DIRECTORY_STATUS(212),
    FILE_STATUS(213),
    HELP(214),
    SYSTEM_TYPE(215),
    READY(220),
    CLOSING(221),
    DATA_CONNECTION_OPEN(225),
    TRANSFER_COMPLETE(226),
    ENTERING_PASSIVE(227),
    ENTERING_EXTENDED_PASSIVE(229),
    LOGGED_IN(230),
    SECURITY_EXCHANGE_OK(234),
    /** RFC 2228: a security data exchange completed; JOIN's last reply (docs/protocol.md, "JOIN"). */
    SECURITY_DATA_DONE(235),
    FILE_ACTION_OK(250),
    PATH_CREATED(257),
    NEED_PASSWORD(331),
    /** RFC 2228: security data accepted, more is needed; JOIN's first reply. */
    SECURITY_DATA_MORE(335),
    PENDING_FURTHER_INFO(350),
    SERVICE_NOT_AVAILABLE(421),
    CANT_OPEN_DATA_CONNECTION(425),
    TRANSFER_ABORTED(426),
    FILE_BUSY(450),
    LOCAL_ERROR(451),
    INSUFFICIENT_STORAGE(452),
    SYNTAX_ERROR(500),
    SYNTAX_ERROR_IN_ARGUMENTS(501),
    NOT_IMPLEMENTED(502),
    BAD_SEQUENCE(503),
    NOT_IMPLEMENTED_FOR_PARAMETER(504),
    NETWORK_PROTOCOL_NOT_SUPPORTED(522),
    NOT_LOGGED_IN(530),
    SECURITY_POLICY_REFUSED(534),
    /** RFC 2228: a security check failed; JOIN refused. */
    SECURITY_CHECK_FAILED(535),
    PROTECTION_LEVEL_NOT_SUPPORTED(536),
    FILE_UNAVAILABLE(550),
    EXCEEDED_STORAGE(552),
    FILE_NAME_NOT_ALLOWED(553),
    INVALID_REST(554);

    private final int value;

    ReplyCode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** 1yz: the command goes on; another reply follows. */
    public boolean isPreliminary() {
        return value < 200;
    }

    @Override
    public String toString() {
        return Integer.toString(value);
    }
}
