{
  "targets": [
    {
      "target_name": "warden_text",
      "sources": ["structure.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
