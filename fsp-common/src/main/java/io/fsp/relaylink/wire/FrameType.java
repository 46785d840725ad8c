package io.fsp.relaylink.wire;

/** The type byte of each frame; values never change once published. */
final class FrameType {
    static final int HELLO = 0x01;
    static final int WELCOME = 0x02;
    static final int BIND_REQUEST = 0x03;
    static final int OPEN_TRANSFER = 0x10;
    static final int PUT_BLOCK = 0x11;
    static final int ABORT_TRANSFER = 0x12;
    static final int FINISH_TRANSFER = 0x13;
    static final int AUTHORIZE = 0x20;
    static final int GET_BLOCK = 0x21;
    static final int CONFIRM = 0x22;
    static final int STATUS = 0x23;
    static final int HOLDS = 0x24;
    static final int OK = 0x80;
    static final int BLOCK = 0x81;
    static final int NOT_FOUND = 0x82;
    static final int CONFIRMED = 0x83;
    static final int STATUS_REPLY = 0x84;
    static final int BIND_GRANT = 0x85;
    static final int HELD = 0x86;
    static final int ERROR = 0xFF;

    /** type u8 + body length u32. */
    static final int HEADER_LENGTH = 5;
    /** id u32 + transfer id u64 + seq i64: what precedes the bytes of PUT_BLOCK and BLOCK. */
    static final int BLOCK_PREFIX = 4 + 8 + 8;

    private FrameType() {
    }

    static boolean carriesBlock(int type) {
        return type == PUT_BLOCK || type == BLOCK;
    }

    static boolean known(int type) {
        return switch (type) {
            case HELLO, WELCOME, BIND_REQUEST, BIND_GRANT, OPEN_TRANSFER, PUT_BLOCK, ABORT_TRANSFER, FINISH_TRANSFER, AUTHORIZE, GET_BLOCK, CONFIRM, STATUS,
                    OK, BLOCK, NOT_FOUND, CONFIRMED, STATUS_REPLY, ERROR, HOLDS, HELD -> true;
            default -> false;
        };
    }
}
