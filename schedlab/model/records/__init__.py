"""Job records: one per job a run saw, kept by columns, read back as records or a table.

- :mod:`.job_record`: ``JobRecord``, its ``Status`` and its columns;
- :mod:`.log`: ``RecordLog``, a machine's or server's records kept by columns;
- :mod:`.columns`: reading a record log by columns, or as a DataFrame;
- :mod:`.table`: ``job_record`` (a job's record) and ``records_frame`` (the DataFrame);
- :mod:`.arrow_arrays`: pyarrow arrays from numpy arrays and texts, without pandas.
"""
