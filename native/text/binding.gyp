{
  "targets": [
    {
      "target_name": "warden_text",
      "sources": ["structure.c", "words.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
