/**
 * Filter rules of alert subscriptions: a hand-written lexer, parser and evaluator for the platform's condition
 * language ({@code matchAnyEventType({'entityCreated'}) && !isBot()}), the function catalogue with the platform's
 * semantics, and the compiler from the UI's structured {@code input.filters/actions} to {@code filteringRules}.
 * No reflection and no script engine: only the functions listed in {@link io.changestream.alerts.filter.FilterFunction}
 * can be called.
 */
package io.changestream.alerts.filter;
