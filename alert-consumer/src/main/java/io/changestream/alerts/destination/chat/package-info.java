/** Slack, Microsoft Teams and Google Chat: incoming-webhook messages in each platform's format. */
package io.changestream.alerts.destination.chat;
