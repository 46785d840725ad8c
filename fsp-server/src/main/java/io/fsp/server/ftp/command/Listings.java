package io.fsp.server.ftp.command;

import io.fsp.server.fs.DirectoryEntry;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.ListingFormatter;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.ftp.data.FileSender;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** What LIST, NLST and MLSD share: argument parsing, reading the directory off the loop, sending the text. */
final class Listings {
    enum Format { LIST, NLST, MLSD }

    private Listings() {
    }

    /**
     * The path in a LIST or NLST argument, without the {@code ls} options clients add ({@code LIST -la},
     * {@code LIST -a dir}); {@code "."} if none.
     */
    static String pathArgument(String argument) {
        String rest = argument.strip();
        while (rest.startsWith("-")) {
            int space = rest.indexOf(' ');
            rest = space < 0 ? "" : rest.substring(space + 1).strip();
        }
        return rest.isEmpty() ? "." : rest;
    }

    static void send(FtpSession session, FtpRequest request, Format format) {
        String argument = format == Format.MLSD ? (request.hasArgument() ? request.argument() : ".")
                : pathArgument(request.argument());
        Optional<FtpPath> resolved = CommandPaths.resolve(session, argument);
        if (resolved.isEmpty()) {
            return;
        }
        FtpPath path = resolved.get();
        Optional<DataConnection> connection = session.takeDataConnectionOrReply();
        if (connection.isEmpty()) {
            return;
        }
        boolean writable = session.isWritable();
        session.blocking(path, () -> render(session, path, format, writable),
                text -> {
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    DataTransfers.run(session, connection.get(), path,
                            "Opening " + (session.type() == io.fsp.server.ftp.TransferType.ASCII ? "ASCII" : "BINARY")
                                    + " mode data connection for " + format + " " + Replies.quote(path),
                            FileSender.text(session, Unpooled.wrappedBuffer(bytes)), ok -> { });
                },
                () -> connection.get().close());
    }

    private static String render(FtpSession session, FtpPath path, Format format, boolean writable) throws Exception {
        BasicFileAttributes attrs = session.root().attributes(path);
        boolean directory = attrs.isDirectory();
        if (format == Format.MLSD && !directory) {
            throw new FtpReplyException(Replies.badArguments(Replies.quote(path) + ": not a directory"));
        }
        List<DirectoryEntry> entries = directory
                ? ListingFormatter.read(session.root(), path)
                : List.of(DirectoryEntry.of(path.name(), attrs));
        Instant now = Instant.now();
        StringBuilder sb = new StringBuilder(entries.size() * 64);
        for (DirectoryEntry e : entries) {
            switch (format) {
                case LIST -> sb.append(ListingFormatter.listLine(e, now));
                case NLST -> sb.append(directory ? e.name() : path.toString());
                case MLSD -> sb.append(ListingFormatter.facts(e, e.name(), writable));
            }
            sb.append("\r\n");
        }
        return sb.toString();
    }
}
