package io.fsp.extension;

import io.fsp.block.RelativePaths;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Names and free text in one field of an FSP line (docs/protocol.md §1, "FSP extension"): percent-encoded UTF-8, so
 * no field holds a space, CR or LF, written and read in one exact form; a name is a relative path by the one rule
 * ({@link RelativePaths}).
 */
final class ExtensionNames {
    private ExtensionNames() {
    }

    /** Free text in one field: percent-encoded UTF-8, as a name is. */
    static String encodeText(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String decodeText(String text) {
        return decodeName(text);
    }

    /**
     * A DIR, FILE or FPRI name: {@link #checkName}, and a relative path by the one rule ({@link RelativePaths}), so
     * nothing that holds an announcement holds a name that would leave the directory it is joined to. A refusal's
     * message starts with {@code what}.
     */
    static void checkRelativeName(String what, String name) {
        checkName(name);
        String problem = RelativePaths.problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(what + problem);
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("name: empty (expected: a relative path)");
        }
        int bytes = ascii(name) ? name.length() : utf8Length(name); // ASCII, the common case, needs no encoder
        if (bytes > ExtensionLimits.MAX_NAME_BYTES) {
            throw new IllegalArgumentException("name: " + bytes + " bytes (expected: <= " + ExtensionLimits.MAX_NAME_BYTES + ")");
        }
    }

    private static int utf8Length(String name) {
        try {
            return StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(name)).remaining();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("name: '" + ExtensionCodec.shorten(name) + "' (expected: valid Unicode)");
        }
    }

    /** Percent-encoded UTF-8: only letters, digits and {@code . - * _} stay as they are. */
    static String encodeName(String name) {
        if (plainPath(name)) { // as most names are: what URLEncoder gives without its per-character work
            return name.replace("/", "%2F"); // the same string when it holds no /
        }
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String decodeName(String text) {
        String plain = decodePlainPath(text);
        if (plain != null) {
            return plain;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length() && hex(text.charAt(i + 1)) >= 0 && hex(text.charAt(i + 2)) >= 0) {
                bytes.write(hex(text.charAt(i + 1)) << 4 | hex(text.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80 && c != '%' && c != '+' && c > ' ') {
                bytes.write(c);
            } else {
                throw new IllegalArgumentException("name: '" + ExtensionCodec.shorten(text) + "' (expected: percent-encoded UTF-8)");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("name: '" + ExtensionCodec.shorten(text) + "' (expected: percent-encoded UTF-8)");
        }
    }

    /** Letters, digits and {@code . - * _}: the characters a name's encoding keeps as they are. */
    private static boolean unreserved(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '*'
                || c == '_';
    }

    /** A name of unreserved characters and {@code /} only. */
    private static boolean plainPath(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!unreserved(c) && c != '/') {
                return false;
            }
        }
        return true;
    }

    /** The name {@code text} encodes if it holds only unreserved characters and {@code %2F}, else null. */
    private static String decodePlainPath(String text) {
        StringBuilder name = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length() && text.charAt(i + 1) == '2'
                    && (text.charAt(i + 2) == 'F' || text.charAt(i + 2) == 'f')) {
                if (name == null) {
                    name = new StringBuilder(text.length()).append(text, 0, i);
                }
                name.append('/');
                i += 2;
            } else if (unreserved(c)) {
                if (name != null) {
                    name.append(c);
                }
            } else {
                return null;
            }
        }
        return name == null ? text : name.toString();
    }

    private static boolean ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }
}
