package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.netty.util.NetUtil;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * {@code EPRT |proto|address|port|} — RFC 2428 §2: PORT for IPv4 (1) and IPv6 (2). The protocol must be
 * the control connection's (522 otherwise).
 */
public final class EprtCommand extends DataSetupCommand {
    @Override
    public String verb() {
        return "EPRT";
    }

    @Override
    public String syntax() {
        return "EPRT |proto|address|port|";
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("EPRT");
    }

    @Override
    void setUp(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip();
        String family = session.peerAddress().getAddress() instanceof Inet6Address ? "2" : "1";
        String[] f = arg.length() > 1 ? arg.substring(1).split(java.util.regex.Pattern.quote(arg.substring(0, 1)), -1) : new String[0];
        // "|2|::1|5282|" splits into ["2", "::1", "5282", ""]
        if (f.length != 4 || !f[3].isEmpty() || !f[2].matches("\\d{1,5}") || !NetUtil.isValidIpV4Address(f[1]) && !NetUtil.isValidIpV6Address(f[1])) {
            session.reply(Replies.badArguments("EPRT '" + request.argument() + "' (expected: |1|h.h.h.h|port| or |2|ipv6|port|)"));
            return;
        }
        if (!f[0].equals(family)) {
            session.reply(new FtpReply(ReplyCode.NETWORK_PROTOCOL_NOT_SUPPORTED, "Network protocol not supported, use (" + family + ")"));
            return;
        }
        int port = Integer.parseInt(f[2]);
        if (port > 65535) {
            session.reply(Replies.badArguments("EPRT port " + port + " (expected: 1024..65535)"));
            return;
        }
        InetAddress address;
        try {
            address = InetAddress.getByAddress(NetUtil.createByteArrayFromIpAddressString(f[1]));
        } catch (UnknownHostException e) {
            session.reply(Replies.badArguments("EPRT address '" + f[1] + "' is not an IP address"));
            return;
        }
        DataCommands.connectTo(session, address, port);
    }
}
