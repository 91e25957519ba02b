/** E-mail over SMTP: receivers resolved from the platform, messages, the SMTP client settings. */
package io.changestream.alerts.destination.email;
