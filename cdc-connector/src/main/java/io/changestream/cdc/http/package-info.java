/** Health and Prometheus metrics over HTTP (Javalin). */
package io.changestream.cdc.http;
