package io.changestream.alerts.filter;

import io.changestream.alerts.filter.Lexer.Kind;
import io.changestream.alerts.filter.Lexer.Token;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive-descent parser: {@code or := and ('||' and)*}, {@code and := unary ('&&' unary)*},
 * {@code unary := '!' unary | '(' or ')' | true | false | call}, {@code call := IDENT '(' [arg (',' arg)*] ')'},
 * {@code arg := STRING | '{' [STRING (',' STRING)*] '}'}. Depth is bounded by {@link FilterLimits#maxDepth()}.
 */
final class Parser {

    private final List<Token> tokens;
    private final FilterLimits limits;
    private int index;
    private int depth;

    private Parser(List<Token> tokens, FilterLimits limits) {
        this.tokens = tokens;
        this.limits = limits;
    }

    static Expression parse(String source, FilterLimits limits) {
        if (source == null || source.isBlank()) {
            throw new FilterSyntaxException("empty condition", 0);
        }
        if (source.length() > limits.maxConditionLength()) {
            throw new FilterSyntaxException("condition longer than " + limits.maxConditionLength()
                    + " characters (filter.maxConditionLength)", limits.maxConditionLength());
        }
        Parser parser = new Parser(new Lexer(source).tokens(), limits);
        Expression expression = parser.or();
        Token rest = parser.peek();
        if (rest.kind() != Kind.EOF) {
            throw new FilterSyntaxException("unexpected '" + rest.text() + "'", rest.position());
        }
        return expression;
    }

    private Expression or() {
        Expression left = and();
        while (peek().kind() == Kind.OR) {
            index++;
            left = new Expression.Or(left, and());
        }
        return left;
    }

    private Expression and() {
        Expression left = unary();
        while (peek().kind() == Kind.AND) {
            index++;
            left = new Expression.And(left, unary());
        }
        return left;
    }

    private Expression unary() {
        Token token = peek();
        if (++depth > limits.maxDepth()) {
            throw new FilterSyntaxException("nesting deeper than " + limits.maxDepth() + " (filter.maxDepth)",
                    token.position());
        }
        try {
            return switch (token.kind()) {
                case NOT -> {
                    index++;
                    yield new Expression.Not(unary());
                }
                case LPAREN -> {
                    index++;
                    Expression inner = or();
                    expect(Kind.RPAREN, "')'");
                    yield inner;
                }
                case TRUE -> {
                    index++;
                    yield new Expression.Literal(true);
                }
                case FALSE -> {
                    index++;
                    yield new Expression.Literal(false);
                }
                case IDENT -> call();
                default -> throw new FilterSyntaxException(
                        token.kind() == Kind.EOF ? "unexpected end of condition" : "unexpected '" + token.text() + "'",
                        token.position());
            };
        } finally {
            depth--;
        }
    }

    private Expression call() {
        Token name = next();
        FilterFunction function = FilterFunction.byName(name.text())
                .orElseThrow(() -> new FilterSyntaxException("unknown function '" + name.text() + "'",
                        name.position()));
        expect(Kind.LPAREN, "'(' after " + name.text());
        List<String> values = new ArrayList<>();
        int arguments = 0;
        if (peek().kind() != Kind.RPAREN) {
            do {
                arguments++;
                argument(values);
            } while (accept(Kind.COMMA));
        }
        expect(Kind.RPAREN, "')'");
        function.validate(arguments, values, name.position(), limits);
        return new Expression.Call(function, values);
    }

    private void argument(List<String> values) {
        Token token = next();
        if (token.kind() == Kind.STRING) {
            values.add(token.text());
            return;
        }
        if (token.kind() != Kind.LBRACE) {
            throw new FilterSyntaxException("expected a string or {'…'} set, found '" + token.text() + "'",
                    token.position());
        }
        if (accept(Kind.RBRACE)) {
            return;
        }
        do {
            Token item = next();
            if (item.kind() != Kind.STRING) {
                throw new FilterSyntaxException("expected a string in the set, found '" + item.text() + "'",
                        item.position());
            }
            values.add(item.text());
        } while (accept(Kind.COMMA));
        expect(Kind.RBRACE, "'}'");
    }

    private Token peek() {
        return tokens.get(index);
    }

    private Token next() {
        Token token = tokens.get(index);
        if (token.kind() != Kind.EOF) {
            index++;
        }
        return token;
    }

    private boolean accept(Kind kind) {
        if (peek().kind() == kind) {
            index++;
            return true;
        }
        return false;
    }

    private void expect(Kind kind, String what) {
        Token token = peek();
        if (token.kind() != kind) {
            throw new FilterSyntaxException("expected " + what + ", found "
                    + (token.kind() == Kind.EOF ? "end of condition" : "'" + token.text() + "'"), token.position());
        }
        index++;
    }
}
