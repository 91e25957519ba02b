/**
 * Internals of the state manager: the per-partition offset state and its primitive containers. Nothing outside the
 * {@code state-manager} module imports this package.
 */
package io.changestream.state.internal;
