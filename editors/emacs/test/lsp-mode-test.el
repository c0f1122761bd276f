;;; lsp-mode-test.el --- lsp-mode (Debian elpa-lsp-mode 8.0) against the real rewind-lsp  -*- lexical-binding: t -*-
;;
;; With the snippet of lsp/README.md: open files, preview a rewind (`rewind.preview' through
;; `workspace/executeCommand'), revert one hunk through the code action "Revert this hunk to
;; before turn 1", rewind the whole turn, undo; save as a person would and compare the files
;; byte for byte. Then steps, in a second folder with its own server: a turn of two Edit calls
;; reported with `rewind.toolCall', hover (`lsp-describe-thing-at-point') on step 1's line, the
;; code action "Revert step 1 of turn 1 here (Edit f.txt)", undo.
;; lsp-mode sends didChange as it edits and applies creates and deletes itself
;; (resourceOperations). No warning may appear: rewind-lsp sends its custom notification
;; `rewind/didChange' only to clients that ask for it, and lsp-mode warns "Unknown
;; notification" for one it has no handler for.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)
(require 'lsp-mode)
(require 'markdown-mode)

(setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
      lsp-auto-guess-root nil
      lsp-enable-file-watchers nil
      lsp-keep-workspace-alive nil
      lsp-restart 'ignore
      lsp-enable-snippet nil
      lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil
      lsp-modeline-diagnostics-enable nil
      lsp-modeline-workspace-status-enable nil
      lsp-lens-enable nil
      lsp-response-timeout 60)

;; What a person sees: lsp-mode's warnings ("Unknown notification: …") and errors.
(advice-add 'display-warning :before
            (lambda (_type msg &optional level &rest _)
              (when (memq (or level :warning) '(:warning :error :emergency)) (push msg rw-warnings))))

;; The documented configuration, with rewind-lsp found on PATH as a user would have it.
(setenv "PATH" (concat (file-name-directory rw-bin) path-separator (getenv "PATH")))
(push (file-name-directory rw-bin) exec-path)
(rw-eval-snippet "lsp-register-client")

(defun rw-visit (rel)
  (find-file-noselect (expand-file-name rel rw-ws)))

(defun rw-command (name args)
  "Run server command NAME with ARGS (a plist) and return its result."
  (with-current-buffer (rw-visit "a.txt")
    (lsp-request "workspace/executeCommand" (list :command name :arguments (vector args)))))

(defun rw-save-all ()
  (save-some-buffers t))

(defun rw-check-tree (name want)
  (let ((d (rw-wait (lambda () (null (rw-tree-diff (concat rw-expect want) rw-ws))) 10)))
    (rw-check name d (rw-tree-diff (concat rw-expect want) rw-ws))))

(defun rw-buffer-is (rel want)
  (with-current-buffer (rw-visit rel)
    (equal (encode-coding-string (buffer-string) 'utf-8-unix) (rw-bytes (concat rw-expect want "/" rel)))))

(defun rw-ready-p (buf)
  (with-current-buffer buf
    (cl-some (lambda (w) (eq (lsp--workspace-status w) 'initialized)) (lsp-workspaces))))

(rw-section "start lsp-mode"
  (lsp-workspace-folders-add (directory-file-name rw-ws))
  (let ((a (rw-visit "a.txt")) (notes (rw-visit "notes.md")))
    (with-current-buffer notes
      (rw-check "notes.md opens in markdown-mode (elpa-markdown-mode)" (derived-mode-p 'markdown-mode) major-mode))
    (with-current-buffer a (lsp))
    (rw-check "lsp-mode starts rewind-lsp for a.txt" (rw-wait (lambda () (rw-ready-p a)) 30))
    (with-current-buffer notes (lsp))
    (rw-check "and attaches notes.md to the same server"
              (rw-wait (lambda () (and (rw-ready-p notes)
                                       (equal (with-current-buffer notes (lsp-workspaces))
                                              (with-current-buffer a (lsp-workspaces)))))
                       30))))

(rw-section "preview"
  (let* ((plan (rw-command "rewind.preview" '(:target "1")))
         (files (mapcar (lambda (f) (cons (rw-get f "path") (rw-get f "change"))) (rw-seq (rw-get plan "files")))))
    (rw-check "rewind.preview returns the plan: a.txt and notes.md modified, b.txt created, c.txt deleted"
              (equal (sort files (lambda (x y) (string< (car x) (car y))))
                     '(("a.txt" . "modify") ("b.txt" . "create") ("c.txt" . "delete") ("notes.md" . "modify")))
              files)
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
    (let* ((actions (lsp-code-actions-at-point))
           (titles (mapcar (lambda (a) (rw-get a "title")) actions))
           (hunk (cl-find "Revert this hunk to before turn 1" actions
                          :key (lambda (a) (rw-get a "title")) :test #'equal)))
      (rw-check "code actions on line 2 offer \"Revert this hunk to before turn 1\"" hunk titles)
      (when hunk (lsp-execute-code-action hunk)))
    (rw-check "the buffer holds the reverted hunk" (rw-wait (lambda () (rw-buffer-is "a.txt" "hunk")) 10)
              (buffer-string))
    (rw-settle 1)
    (rw-save-all)
    (rw-check-tree "after saving, only line 2 of a.txt is back on disk (line 9 keeps the agent's edit)" "hunk")))

(rw-section "rewind"
  (let ((result (rw-command "rewind.rewind" '(:target "1"))))
    (rw-check "rewind.rewind through lsp-mode reports applied" (eq (rw-get result "applied") t) result)
    (rw-check "the open buffers hold the turn-1 state"
              (and (rw-buffer-is "a.txt" "start") (rw-buffer-is "notes.md" "start")))
    (rw-settle 1)
    (let ((asked (length rw-questions)))
      (rw-save-all)
      ;; lsp-mode applies the CreateFile of b.txt after the text edit that fills its new buffer,
      ;; so the file appears (empty) under the buffer and saving asks whether to overwrite it.
      (dolist (q (reverse (butlast rw-questions asked)))
        (rw-print "# saving asked: %s (answered yes)" q)))
    (rw-check-tree "after saving, the files on disk are the turn-1 start byte for byte (b.txt back, c.txt gone)" "start")))

(rw-section "undo"
  (let ((result (rw-command "rewind.undo" '())))
    (rw-check "rewind.undo through lsp-mode reports applied" (eq (rw-get result "applied") t) result)
    (rw-settle 1)
    (rw-save-all)
    (rw-check-tree "undo brings back the state before the rewind byte for byte" "hunk")))

(defun rw-steps-command (name args)
  "Run server command NAME with ARGS (a plist) through the steps folder's server."
  (with-current-buffer (find-file-noselect (expand-file-name "f.txt" rw-steps-ws))
    (lsp-request "workspace/executeCommand" (list :command name :arguments (vector args)))))

(rw-section "steps"
  (let ((buf (find-file-noselect (expand-file-name "f.txt" (rw-steps-make-workspace)))))
    (lsp-workspace-folders-add (directory-file-name rw-steps-ws))
    (with-current-buffer buf (lsp))
    (rw-check "lsp-mode starts a second rewind-lsp for the steps folder, managing f.txt"
              (rw-wait (lambda () (and (rw-ready-p buf)
                                       (not (equal (with-current-buffer buf (lsp-workspaces))
                                                   (with-current-buffer (rw-visit "a.txt") (lsp-workspaces))))))
                       30))
    (let ((steps (rw-steps-record #'rw-steps-command buf)))
      (rw-check "rewind.toolCall through lsp-mode records the turn's two Edit calls as steps 1 and 2"
                (equal steps '(1 2)) steps))
    (rw-check "the buffer shows both edits (reverted from disk)" (rw-buffer-bytes-p buf rw-steps-end)
              (with-current-buffer buf (buffer-string)))
    (with-current-buffer buf
      (goto-char (point-min))           ; line 1, step 1's
      (lsp-describe-thing-at-point)
      (let ((info (with-current-buffer (get-buffer-create "*lsp-help*") (buffer-string))))
        (rw-check "hover on step 1's line names it: \"Agent turn 1, step 1: Edit f.txt\""
                  (rw-steps-hover-p info) info))
      (let* ((actions (lsp-code-actions-at-point))
             (titles (mapcar (lambda (a) (rw-get a "title")) actions))
             (step (cl-find "Revert step 1 of turn 1 here (Edit f.txt)" actions
                            :key (lambda (a) (rw-get a "title")) :test #'equal)))
        (rw-check "code actions on step 1's line offer \"Revert step 1 of turn 1 here (Edit f.txt)\"" step titles)
        (when step (lsp-execute-code-action step)))
      (rw-check "the buffer: step 1's line is back, step 2's line stays, byte for byte"
                (rw-wait (lambda () (rw-buffer-bytes-p buf rw-steps-reverted)) 10) (buffer-string))
      (rw-settle 1)
      (rw-save-all)
      (rw-steps-check-tree "after saving, f.txt on disk is a, b, C byte for byte" rw-steps-reverted))
    (let ((result (rw-steps-command "rewind.undo" '())))
      (rw-check "rewind.undo through lsp-mode reports applied" (eq (rw-get result "applied") t) result)
      (rw-check "the buffer holds both steps' lines again"
                (rw-wait (lambda () (rw-buffer-bytes-p buf rw-steps-end)) 10)
                (with-current-buffer buf (buffer-string)))
      (rw-settle 1)
      (rw-save-all)
      (rw-steps-check-tree "after saving, f.txt on disk is the end of the turn byte for byte" rw-steps-end))
    (rw-steps-check-journal)))

(rw-section "journal"
  (rw-check-turns "the rewinds, the undo, lsp-mode's echoes and saves recorded no turn (still 1)" 1)
  ;; A journal change from outside (another process) while lsp-mode is connected.
  (rw-cli "checkpoint" "from-the-cli")
  (rw-settle 2)
  (rw-check "no warnings in Emacs (no \"Unknown notification: rewind/didChange\")" (null rw-warnings) rw-warnings))

(when rw-steps-ws
  (ignore-errors (with-current-buffer (find-file-noselect (expand-file-name "f.txt" rw-steps-ws))
                   (lsp-workspace-shutdown (car (lsp-workspaces))))))
(ignore-errors (with-current-buffer (rw-visit "a.txt") (lsp-workspace-shutdown (car (lsp-workspaces)))))
(rw-summary)
(kill-emacs (if (> rw-failed 0) 1 0))
;;; lsp-mode-test.el ends here
