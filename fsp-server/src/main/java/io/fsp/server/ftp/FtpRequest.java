package io.fsp.server.ftp;

import java.util.Locale;

/**
 * One command line: the verb in upper case and its argument, everything after the first space exactly as
 * sent (path names may begin or end with blanks), or empty.
 */
public record FtpRequest(String verb, String argument) implements FtpRequestLine {
    public FtpRequest {
        verb = verb.toUpperCase(Locale.ROOT);
    }

    public boolean hasArgument() {
        return !argument.isEmpty();
    }

    /** The line as it may appear in a log: PASS arguments are masked. */
    @Override
    public String toString() {
        if (argument.isEmpty()) {
            return verb;
        }
        return verb + " " + (verb.equals("PASS") ? "****" : argument);
    }
}
