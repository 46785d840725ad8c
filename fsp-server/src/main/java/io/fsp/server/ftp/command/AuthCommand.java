package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.FtpServerInitializer;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;

/**
 * {@code AUTH TLS} (also {@code AUTH SSL}, which curl tries first, and {@code TLS-C}) — RFC 4217 §4,
 * RFC 2228 §3. The TLS handler goes first in the pipeline with {@code startTls} set, so the 234 reply
 * still leaves in clear and the handshake follows it.
 */
public final class AuthCommand implements FtpCommand {
    @Override
    public String verb() {
        return "AUTH";
    }

    @Override
    public String syntax() {
        return "AUTH TLS";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("AUTH TLS", "AUTH SSL");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String mechanism = request.argument().strip().toUpperCase(Locale.ROOT);
        if (!List.of("TLS", "SSL", "TLS-C", "TLS-P").contains(mechanism)) {
            session.reply(Replies.notImplementedForParameter("AUTH " + mechanism + " not supported (expected: TLS)"));
            return;
        }
        if (session.isSecure()) {
            session.reply(Replies.badSequence("TLS is already active"));
            return;
        }
        if (session.isLoggedIn()) {
            session.reply(Replies.badSequence("AUTH must come before login"));
            return;
        }
        session.pendingUser(null);
        SSLEngine engine = session.server().sslContext().newEngine(session.channel().alloc());
        if (session.server().config().requireTlsSessionReuse()) {
            // Uploads use TLS 1.2 on data connections (see DataClientHelloHandler); to resume the
            // control session there, the control session must be TLS 1.2 as well.
            engine.setEnabledProtocols(new String[] {"TLSv1.2"});
        }
        session.channel().pipeline().addFirst(FtpServerInitializer.SSL, new SslHandler(engine, true));
        session.reply(new FtpReply(ReplyCode.SECURITY_EXCHANGE_OK, "AUTH " + mechanism + " ok; start the TLS handshake"));
    }
}
