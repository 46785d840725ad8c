package io.fsp.server.ftp;

/** When a command may run. */
public enum Access {
    /** Before and after login (USER, QUIT, FEAT, AUTH …). */
    ANY,
    /** Right after USER (PASS). */
    AFTER_USER,
    /** Only once logged in (everything that touches files or data connections). */
    LOGGED_IN
}
