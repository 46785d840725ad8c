package io.fsp.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParseResult;

/**
 * What a command that logs in to a server ({@code fsp get}, {@code fsp evacuate}) reads besides its own options: the
 * client configuration ({@code --config}) and, through it, the password ({@code --password-file}).
 */
final class LoginOptions {
    @Mixin
    ClientConfigOption configuration;

    @Mixin
    PasswordOption password;

    /** The settings for the options picocli matched, over the configuration file, over the defaults. */
    ClientSettings settings(ParseResult parsed) {
        return configuration.settings(parsed);
    }

    /** The password for {@code user@host}, as {@link PasswordOption} finds it given these settings. */
    static char[] password(ClientSettings settings, String user, String host) throws java.io.IOException {
        return PasswordOption.password(settings.passwordFile(), user + "@" + host);
    }
}
