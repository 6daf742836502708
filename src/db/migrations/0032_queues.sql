-- Placeholder reserved for a migration in progress; replaced by its real statements.
SELECT 1;
