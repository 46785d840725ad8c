package io.fsp.server.ftp.command;

import io.fsp.server.ftp.FtpCommands;
import io.fsp.server.ftp.HashAlgorithm;

/** The commands every server registers; FSP's extension commands are added where the server is built. */
public final class StandardCommands {
    private StandardCommands() {
    }

    /**
     * The standard command set: RFC 959, 2228, 2389, 2428, 3659, 4217, and the checksum commands: HASH with
     * RANG, XCRC/XMD5/XSHA1/XSHA256/XSHA512 and GridFTP's CKSM.
     */
    public static FtpCommands create() {
        return new FtpCommands()
                .register(new UserCommand())
                .register(new PassCommand())
                .register(new QuitCommand())
                .register(new NoopCommand())
                .register(new SystCommand())
                .register(new FeatCommand())
                .register(new OptsCommand())
                .register(new HelpCommand())
                .register(new StatCommand())
                .register(new AuthCommand())
                .register(new PbszCommand())
                .register(new ProtCommand())
                .register(new PwdCommand(), "XPWD")
                .register(new CwdCommand(), "XCWD")
                .register(new CdupCommand(), "XCUP")
                .register(new TypeCommand())
                .register(new ModeCommand())
                .register(new StruCommand())
                .register(new PasvCommand())
                .register(new EpsvCommand())
                .register(new PortCommand())
                .register(new EprtCommand())
                .register(new ListCommand())
                .register(new NlstCommand())
                .register(new MlsdCommand())
                .register(new MlstCommand())
                .register(new SizeCommand())
                .register(new MdtmCommand())
                .register(new RestCommand())
                .register(new RetrCommand())
                .register(new StorCommand())
                .register(new StouCommand())
                .register(new AppeCommand())
                .register(new AborCommand())
                .register(new DeleCommand())
                .register(new MkdCommand(), "XMKD")
                .register(new RmdCommand(), "XRMD")
                .register(new RnfrCommand())
                .register(new RntoCommand())
                .register(new AlloCommand())
                .register(new HashCommand())
                .register(new RangCommand())
                .register(new XChecksumCommand("XCRC", HashAlgorithm.CRC32))
                .register(new XChecksumCommand("XMD5", HashAlgorithm.MD5))
                .register(new XChecksumCommand("XSHA1", HashAlgorithm.SHA_1))
                .register(new XChecksumCommand("XSHA256", HashAlgorithm.SHA_256))
                .register(new XChecksumCommand("XSHA512", HashAlgorithm.SHA_512))
                .register(new CksmCommand());
    }
}
