DROP TABLE audit_counts;
