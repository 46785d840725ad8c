package io.fsp.relay.net;

/** A pushed block that is not what the relay stores ({@link BlockCheck}): refused with BAD_BLOCK. */
final class BadBlockException extends Exception {
    BadBlockException(String message) {
        super(message);
    }
}
