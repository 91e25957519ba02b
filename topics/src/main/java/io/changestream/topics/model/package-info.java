/**
 * The values carried on changestream's topics: immutable Java records with their JSON shape.
 *
 * <p>Platform-shaped records ({@link io.changestream.topics.model.ChangeEvent},
 * {@link io.changestream.topics.model.EventSubscription}, {@link io.changestream.topics.model.PipelineRunStatus},
 * {@link io.changestream.topics.model.LogStreamEvent}) keep the metadata platform's field names and enum strings
 * so that the platform's own clients can read and write them. All records ignore unknown JSON fields on read and
 * omit null fields on write. Records are immutable and safe to share between threads.
 */
package io.changestream.topics.model;
