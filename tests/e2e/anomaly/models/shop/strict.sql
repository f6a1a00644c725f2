-- fails the build on an anomaly of its row count or of amount's NULLs;
-- the NULLs of note are not judged
@config materialized=table, anomaly=error,
        anomaly_columns=[note:off]
SELECT id, amount, note FROM seeds.orders
