;;; eglot-test.el --- eglot (Debian elpa-eglot on Emacs 28) against the real rewind-lsp  -*- lexical-binding: t -*-
;;
;; With the snippet of lsp/README.md: open files, preview a rewind (`rewind.preview' through
;; `workspace/executeCommand': eglot discards command results, so it is sent with
;; `jsonrpc-request' and the plan is checked), revert one hunk through the code action
;; "Revert this hunk to before turn 1", rewind the whole turn, undo; save as a person would
;; and compare the files byte for byte. Then steps, in a second folder with its own server: a
;; turn of two Edit calls reported with `rewind.toolCall', hover (eglot's eldoc function) on
;; step 1's line, the code action "Revert step 1 of turn 1 here (Edit f.txt)", undo.
;;
;; eglot answers `workspace/applyEdit' with applied:true at once and sends the matching
;; didChange only when its idle timer fires: 0.5 s after Emacs became idle, 1-2 s measured in
;; practice, later while the person keeps typing. In `emacs --batch' idle timers never fire,
;; so the suite runs eglot's own change timer as an ordinary timer, after 3 s (through
;; `eglot-send-changes-idle-time'): longer than the server waits for an edit's echo, as when a
;; person goes on typing. The server must trust applied:true for versioned edits and still do
;; its disk part.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)
(require 'eglot)
(require 'markdown-mode)

(setq eglot-send-changes-idle-time 3.0
      eglot-sync-connect 30
      eglot-connect-timeout 30
      eglot-autoshutdown nil
      eglot-events-buffer-size 2000000)

(advice-add 'eglot--after-change :around
            (lambda (orig &rest args)
              (cl-letf (((symbol-function 'run-with-idle-timer) #'run-with-timer))
                (apply orig args))))

;; What a person sees: eglot's warnings (unknown notifications, failed edits).
(advice-add 'eglot--warn :before #'rw-record-warning)
(advice-add 'display-warning :before
            (lambda (_type msg &optional level &rest _)
              (when (memq (or level :warning) '(:warning :error :emergency)) (push msg rw-warnings))))

;; The documented configuration, with rewind-lsp found on PATH as a user would have it.
(setenv "PATH" (concat (file-name-directory rw-bin) path-separator (getenv "PATH")))
(push (file-name-directory rw-bin) exec-path)
(rw-eval-snippet "eglot-server-programs")

;; The workspace folder is the project (a transient project: the folder as it is, no VCS); so is
;; the steps folder.
(add-hook 'project-find-functions
          (lambda (dir)
            (cl-some (lambda (root) (when (and root (file-in-directory-p dir root)) (cons 'transient root)))
                     (list rw-ws rw-steps-ws))))

(defun rw-visit (rel)
  (find-file-noselect (expand-file-name rel rw-ws)))

(defun rw-server ()
  (with-current-buffer (rw-visit "a.txt") (eglot-current-server)))

(defun rw-command (name args)
  "Run server command NAME with ARGS (a plist) and return its result."
  (jsonrpc-request (rw-server) :workspace/executeCommand
                   `(:command ,name :arguments [,args])
                   :timeout 60))

(defun rw-save-all ()
  "Save every modified buffer, as `save-some-buffers' with `!' would."
  (save-some-buffers t))

(defun rw-check-tree (name want)
  (let ((d (rw-wait (lambda () (null (rw-tree-diff (concat rw-expect want) rw-ws))) 10)))
    (rw-check name d (rw-tree-diff (concat rw-expect want) rw-ws))))

(defun rw-buffer-is (rel want)
  (with-current-buffer (rw-visit rel)
    (equal (encode-coding-string (buffer-string) 'utf-8-unix) (rw-bytes (concat rw-expect want "/" rel)))))

(defun rw-latest-rewind ()
  "The journal's latest rewind, as `rewind-lsp --json log' lists it."
  (car (last (append (gethash "rewinds" (json-parse-string (rw-cli "--json" "log"))) nil))))

(rw-section "start eglot"
  (let ((a (rw-visit "a.txt")) (notes (rw-visit "notes.md")))
    (with-current-buffer notes
      (rw-check "notes.md opens in markdown-mode (elpa-markdown-mode)" (derived-mode-p 'markdown-mode) major-mode))
    (with-current-buffer a
      (apply #'eglot (eglot--guess-contact)))
    (rw-check "eglot manages a.txt with rewind-lsp"
              (with-current-buffer a (and (eglot-current-server) eglot--managed-mode)))
    (with-current-buffer notes (eglot--maybe-activate-editing-mode))
    (rw-check "the same server manages notes.md (text-mode and markdown-mode)"
              (with-current-buffer notes (eq (eglot-current-server) (rw-server))))
    (rw-check "serverInfo names rewind-lsp"
              (equal (plist-get (eglot--server-info (rw-server)) :name) "rewind-lsp")
              (eglot--server-info (rw-server)))))

(rw-section "preview"
  (let* ((plan (rw-command "rewind.preview" '(:target "1")))
         (files (mapcar (lambda (f) (cons (rw-get f "path") (rw-get f "change"))) (rw-seq (rw-get plan "files")))))
    (rw-check "rewind.preview returns the plan: a.txt and notes.md modified, b.txt created, c.txt deleted"
              (equal (sort files (lambda (x y) (string< (car x) (car y))))
                     '(("a.txt" . "modify") ("b.txt" . "create") ("c.txt" . "delete") ("notes.md" . "modify")))
              plan)
    (rw-check "the plan's diff shows line 2 and line 9 going back"
              (let ((d (rw-get plan "diff")))
                (and (string-match-p "^-LINE 2 (agent)$" d) (string-match-p "^\\+line 2$" d)
                     (string-match-p "^-LINE 9 (agent)$" d)))
              (rw-get plan "diff"))
    (rw-check-tree "a preview changes no file" "end")))

(rw-section "hunk revert"
  (with-current-buffer (rw-visit "a.txt")
    (goto-char (point-min))
    (forward-line 1)                    ; line 2, the first of the agent's two hunks
    (let (offered)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt items &rest _)
                   (setq offered (mapcar #'car items))
                   (or (cl-find-if (lambda (s) (string-prefix-p "Revert this hunk" s)) offered)
                       (error "no hunk action among %S" offered)))))
        (let ((last-nonmenu-event ?\r))  ; a keyboard-driven menu (no popup in a terminal)
          (eglot-code-actions (line-beginning-position) (line-end-position) nil t)))
      (rw-check "code actions on line 2 offer \"Revert this hunk to before turn 1\""
                (member "Revert this hunk to before turn 1" offered) offered))
    (rw-wait (lambda () (not (buffer-modified-p))) 0.1)
    (rw-check "the buffer holds the reverted hunk at once" (rw-buffer-is "a.txt" "hunk")
              (buffer-string))
    (rw-settle 4)                       ; eglot's didChange goes out
    (let ((r (rw-latest-rewind)))
      (rw-check "the journal records the hunk revert as applied (eglot shows no command result)"
                    (and r (eq (gethash "applied" r) t)) r))
    (rw-save-all)
    (rw-check-tree "after saving, only line 2 of a.txt is back on disk (line 9 keeps the agent's edit)" "hunk")))

(rw-section "rewind"
  (let* ((before (length rw-questions))
         (result (rw-command "rewind.rewind" '(:target "1"))))
    (rw-check "rewind.rewind through eglot reports applied" (eq (rw-get result "applied") t) result)
    (rw-check "the open buffers hold the turn-1 state at once"
                  (and (rw-buffer-is "a.txt" "start") (rw-buffer-is "notes.md" "start")))
    (rw-check "eglot asked nothing beyond its edit confirmation"
              (<= (- (length rw-questions) before) 1) rw-questions)
    (rw-settle 4)
    (rw-save-all)
    (rw-check-tree "after saving, the files on disk are the turn-1 start byte for byte (b.txt back, c.txt gone)"
                   "start")))

(rw-section "undo"
  (let ((result (rw-command "rewind.undo" '())))
    (rw-check "rewind.undo through eglot reports applied" (eq (rw-get result "applied") t) result)
    (rw-settle 4)
    (rw-save-all)
    (rw-check-tree "undo brings back the state before the rewind byte for byte" "hunk")))

(defun rw-steps-command (name args)
  "Run server command NAME with ARGS (a plist) through the steps folder's server."
  (with-current-buffer (find-file-noselect (expand-file-name "f.txt" rw-steps-ws))
    (jsonrpc-request (eglot-current-server) :workspace/executeCommand
                     `(:command ,name :arguments [,args])
                     :timeout 60)))

(rw-section "steps"
  (let ((buf (find-file-noselect (expand-file-name "f.txt" (rw-steps-make-workspace)))))
    (with-current-buffer buf
      (apply #'eglot (eglot--guess-contact)))
    (rw-check "eglot starts a second rewind-lsp for the steps folder, managing f.txt"
              (with-current-buffer buf
                (and eglot--managed-mode (eglot-current-server) (not (eq (eglot-current-server) (rw-server))))))
    (let ((steps (rw-steps-record #'rw-steps-command buf)))
      (rw-check "rewind.toolCall through eglot records the turn's two Edit calls as steps 1 and 2"
                (equal steps '(1 2)) steps))
    (rw-check "the buffer shows both edits (reverted from disk)" (rw-buffer-bytes-p buf rw-steps-end)
              (with-current-buffer buf (buffer-string)))
    (with-current-buffer buf
      (goto-char (point-min))           ; line 1, step 1's
      ;; eglot hands hover to eldoc only for a buffer shown in a window.
      (set-window-buffer (selected-window) buf)
      (let (info)
        (eglot-hover-eldoc-function (lambda (s &rest _) (setq info (or s ""))))
        (rw-wait (lambda () info) 10)
        (rw-check "hover on step 1's line names it: \"Agent turn 1, step 1: Edit f.txt\""
                  (rw-steps-hover-p info) info))
      (let (offered)
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt items &rest _)
                     (setq offered (mapcar #'car items))
                     (or (cl-find-if (lambda (s) (string-prefix-p "Revert step 1 of turn 1 here" s)) offered)
                         (error "no step action among %S" offered)))))
          (let ((last-nonmenu-event ?\r))  ; a keyboard-driven menu (no popup in a terminal)
            (eglot-code-actions (line-beginning-position) (line-end-position) nil t)))
        (rw-check "code actions on step 1's line offer \"Revert step 1 of turn 1 here (Edit f.txt)\""
                  (member "Revert step 1 of turn 1 here (Edit f.txt)" offered) offered))
      (rw-check "the buffer at once: step 1's line is back, step 2's line stays, byte for byte"
                (rw-buffer-bytes-p buf rw-steps-reverted) (buffer-string))
      (rw-settle 4)                     ; eglot's didChange goes out
      (rw-save-all)
      (rw-steps-check-tree "after saving, f.txt on disk is a, b, C byte for byte" rw-steps-reverted))
    (let ((result (rw-steps-command "rewind.undo" '())))
      (rw-check "rewind.undo through eglot reports applied" (eq (rw-get result "applied") t) result)
      (rw-check "the buffer holds both steps' lines again" (rw-buffer-bytes-p buf rw-steps-end)
                (with-current-buffer buf (buffer-string)))
      (rw-settle 4)
      (rw-save-all)
      (rw-steps-check-tree "after saving, f.txt on disk is the end of the turn byte for byte" rw-steps-end))
    (rw-steps-check-journal)))

(rw-section "journal"
  (rw-check-turns "the rewinds, the undo, eglot's echoes and saves recorded no turn (still 1)" 1)
  ;; A journal change from outside (another process) while eglot is connected.
  (rw-cli "checkpoint" "from-the-cli")
  (rw-settle 4)
  (rw-check "no warnings in Emacs (no unknown rewind/didChange notification)" (null rw-warnings) rw-warnings))

(when rw-steps-ws
  (ignore-errors (with-current-buffer (find-file-noselect (expand-file-name "f.txt" rw-steps-ws))
                   (eglot-shutdown (eglot-current-server)))))
(ignore-errors (eglot-shutdown (rw-server)))
(rw-summary)
(kill-emacs (if (> rw-failed 0) 1 0))
;;; eglot-test.el ends here
