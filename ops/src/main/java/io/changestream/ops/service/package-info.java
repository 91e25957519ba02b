/** Running the services from the launcher: stop signals and printing effective configs with secrets masked. */
package io.changestream.ops.service;
