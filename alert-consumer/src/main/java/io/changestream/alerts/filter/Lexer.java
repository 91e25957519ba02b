package io.changestream.alerts.filter;

import java.util.ArrayList;
import java.util.List;

/** Splits a condition into tokens. One instance per condition; not thread-safe. */
final class Lexer {

    enum Kind { IDENT, STRING, LPAREN, RPAREN, LBRACE, RBRACE, COMMA, AND, OR, NOT, TRUE, FALSE, EOF }

    record Token(Kind kind, String text, int position) {
    }

    private final String source;
    private int pos;

    Lexer(String source) {
        this.source = source;
    }

    List<Token> tokens() {
        List<Token> out = new ArrayList<>();
        while (true) {
            skipWhitespace();
            if (pos >= source.length()) {
                out.add(new Token(Kind.EOF, "", pos));
                return out;
            }
            out.add(next());
        }
    }

    private Token next() {
        int start = pos;
        char c = source.charAt(pos);
        switch (c) {
            case '(' -> { pos++; return new Token(Kind.LPAREN, "(", start); }
            case ')' -> { pos++; return new Token(Kind.RPAREN, ")", start); }
            case '{' -> { pos++; return new Token(Kind.LBRACE, "{", start); }
            case '}' -> { pos++; return new Token(Kind.RBRACE, "}", start); }
            case ',' -> { pos++; return new Token(Kind.COMMA, ",", start); }
            case '!' -> { pos++; return new Token(Kind.NOT, "!", start); }
            case '&' -> { return pair('&', Kind.AND, start); }
            case '|' -> { return pair('|', Kind.OR, start); }
            case '\'', '"' -> { return string(c, start); }
            default -> {
                if (Character.isJavaIdentifierStart(c)) {
                    return word(start);
                }
                throw new FilterSyntaxException("unexpected character '" + printable(c) + "'", start);
            }
        }
    }

    private Token pair(char c, Kind kind, int start) {
        if (pos + 1 < source.length() && source.charAt(pos + 1) == c) {
            pos += 2;
            return new Token(kind, "" + c + c, start);
        }
        throw new FilterSyntaxException("expected '" + c + c + "'", start);
    }

    private Token string(char quote, int start) {
        StringBuilder value = new StringBuilder();
        pos++;
        while (pos < source.length()) {
            char c = source.charAt(pos);
            if (c == quote) {
                if (pos + 1 < source.length() && source.charAt(pos + 1) == quote) {
                    value.append(quote);
                    pos += 2;
                    continue;
                }
                pos++;
                return new Token(Kind.STRING, value.toString(), start);
            }
            value.append(c);
            pos++;
        }
        throw new FilterSyntaxException("unterminated string literal", start);
    }

    private Token word(int start) {
        while (pos < source.length() && Character.isJavaIdentifierPart(source.charAt(pos))) {
            pos++;
        }
        String text = source.substring(start, pos);
        Kind kind = switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "and" -> Kind.AND;
            case "or" -> Kind.OR;
            case "not" -> Kind.NOT;
            case "true" -> Kind.TRUE;
            case "false" -> Kind.FALSE;
            default -> Kind.IDENT;
        };
        return new Token(kind, text, start);
    }

    private void skipWhitespace() {
        while (pos < source.length() && Character.isWhitespace(source.charAt(pos))) {
            pos++;
        }
    }

    private static String printable(char c) {
        return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }
}
