package io.fsp.server.ftp.command;

/** {@code MODE S} — RFC 959 §4.1.2: stream mode only. */
public final class ModeCommand extends SoleValueCommand {
    public ModeCommand() {
        super("MODE", "S", "Stream", "B C");
    }
}
