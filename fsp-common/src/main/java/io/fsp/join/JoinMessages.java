package io.fsp.join;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * The J-PAKE payloads on the JOIN line: numbers as unsigned big-endian bytes, each after a 2-byte length, in
 * base64. What a peer that has not authenticated may send is bounded before anything is decoded: the text's length,
 * the count of numbers and each one's size (a 2048-bit group: 256 bytes).
 */
public final class JoinMessages {
    /** Largest number accepted, in bytes: the group's modulus is 2048 bits. */
    static final int MAX_NUMBER_BYTES = 257;
    /** Most numbers in one payload (round 1: two values and two proofs of two numbers). */
    static final int MAX_NUMBERS = 6;
    /** Longest base64 text accepted for one payload. */
    public static final int MAX_TEXT = (MAX_NUMBERS * (2 + MAX_NUMBER_BYTES) + 2) / 3 * 4;

    private JoinMessages() {
    }

    public static String encode(BigInteger... numbers) {
        ByteBuffer b = ByteBuffer.allocate(numbers.length * (2 + MAX_NUMBER_BYTES));
        for (BigInteger n : numbers) {
            if (n.signum() < 0) {
                throw new IllegalArgumentException("negative number");
            }
            byte[] bytes = n.toByteArray();
            int skip = bytes.length > 1 && bytes[0] == 0 ? 1 : 0;
            int length = bytes.length - skip;
            if (length > MAX_NUMBER_BYTES) {
                throw new IllegalArgumentException("number of " + length + " bytes (expected: at most " + MAX_NUMBER_BYTES + ")");
            }
            b.putShort((short) length).put(bytes, skip, length);
        }
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(b.array(), b.position()));
    }

    /**
     * Exactly {@code count} positive numbers from {@code text}.
     *
     * @throws IllegalArgumentException anything else, naming what is wrong
     */
    public static BigInteger[] decode(String text, int count) {
        if (count < 1 || count > MAX_NUMBERS) {
            throw new IllegalArgumentException("count: " + count);
        }
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("payload of " + text.length() + " characters (expected: at most " + MAX_TEXT + ")");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("payload: not base64 (expected: base64 of the J-PAKE numbers)");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        BigInteger[] numbers = new BigInteger[count];
        for (int i = 0; i < count; i++) {
            if (b.remaining() < 2) {
                throw new IllegalArgumentException("payload: " + i + " numbers (expected: " + count + ")");
            }
            int length = b.getShort() & 0xffff;
            if (length < 1 || length > MAX_NUMBER_BYTES || length > b.remaining()) {
                throw new IllegalArgumentException("payload: number " + i + " of " + length + " bytes (expected: 1.."
                        + Math.min(MAX_NUMBER_BYTES, b.remaining()) + ")");
            }
            byte[] n = new byte[length];
            b.get(n);
            numbers[i] = new BigInteger(1, n);
            if (numbers[i].signum() == 0) {
                throw new IllegalArgumentException("payload: number " + i + " is zero (expected: > 0)");
            }
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException("payload: " + b.remaining() + " bytes after " + count + " numbers");
        }
        return numbers;
    }
}
