-- Announcements of new events move out of the writing transaction: a NOTIFY issued inside a
-- transaction makes PostgreSQL serialize its commit (including the WAL flush) with every other
-- notifying transaction, which capped durable move recording at one fsync per move. The storage
-- crate now sends `NOTIFY shinpan_events` on its own statements after the commit (see
-- shinpan_storage::watch); watchers also poll, so nothing depends on the notification arriving.
DROP TRIGGER events_notify ON events;
DROP FUNCTION shinpan_notify_event();
