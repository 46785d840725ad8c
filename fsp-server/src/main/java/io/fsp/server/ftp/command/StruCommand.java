package io.fsp.server.ftp.command;

/** {@code STRU F} — RFC 959 §4.1.2: file structure only. */
public final class StruCommand extends SoleValueCommand {
    public StruCommand() {
        super("STRU", "F", "File", "R P");
    }
}
